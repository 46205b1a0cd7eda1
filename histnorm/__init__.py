"""histnorm: find and repair what makes a stored LLM chat history unreplayable."""
