"""Adapters that run histnorm inside agent frameworks.

Each adapter is a module of its own (`histnorm.integrations.langchain`, ...) and imports its
framework only when it is itself imported: neither `import histnorm` nor this package loads
a framework, and importing an adapter without its framework raises an ImportError that
names the package to install.
"""
