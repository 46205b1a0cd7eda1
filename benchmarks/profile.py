"""Profile `histnorm lint` / `fix` in process with cProfile, on a benchmark corpus.

    python -m benchmarks.profile --format anthropic --size 16 --mode fix [--top 30]
        [--defect-rate 0.1] [--sort tottime|cumtime] [--out PATH.prof]

Prints the top functions; `--out` keeps the raw stats for snakeviz or pstats.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
from pathlib import Path

from histnorm_cli.job import Job
from histnorm_cli.per_file import run_file

import histnorm
from benchmarks import corpus


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.profile")
    parser.add_argument("--format", default="openai-chat", choices=corpus.ALL_FORMATS)
    parser.add_argument("--size", type=float, default=8)
    parser.add_argument("--mode", choices=("lint", "fix"), default="lint")
    parser.add_argument("--defect-rate", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sort", default="tottime")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)

    info = corpus.ensure(args.format, args.size, args.defect_rate, args.seed)
    with tempfile.TemporaryDirectory(dir=corpus.CORPUS_DIR) as scratch:
        settings = histnorm.Settings()
        mode = "message" if args.format == corpus.SESSION_FORMAT else "auto"

        def job(path: str) -> Job:
            if args.mode == "lint":
                return Job(mode="lint", settings=settings, jsonl_mode=mode)
            target = str(Path(scratch) / Path(path).name)
            return Job(mode="fix", settings=settings, write=True, output=target, jsonl_mode=mode)

        files = info.file_paths()
        run_file(files[0], job(files[0]))  # warm up: imports, caches
        profiler = cProfile.Profile()
        profiler.enable()
        for path in files:
            outcome = run_file(path, job(path))
            if outcome.error:
                print(outcome.error, file=sys.stderr)
                return 2
        profiler.disable()
    if args.out:
        profiler.dump_stats(args.out)
    stats = pstats.Stats(profiler).strip_dirs().sort_stats(args.sort)
    print(
        f"{args.mode} {args.format} {info.bytes / corpus.MB:.1f} MB, {info.transcripts} transcripts"
    )
    stats.print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
