"""`histnorm fix` on a folder of JSONL files: the command line (`--jobs`), Ray Data
(`histnorm.integrations.ray`) and Dask (`histnorm.integrations.dask`), with 1 and 2 workers.

The dense corpus (`benchmarks.dense`, fine-tuning records, 10% of them damaged) is cut at
line starts into `--files` files; each run fixes them all into a fresh folder (the command
line fixes a fresh copy in place) in a process of its own, and its output is checked
byte for byte against the command line's. Ray's time excludes `ray.init` (reported on
its own); Dask's includes starting its worker processes. Where all the work is in
processes the run waits for (the command line; Dask on one worker), the CPU seconds are
given too: on a shared machine they say what the wall time would be on an idle one.

    python -m benchmarks.engines --size 128 --files 16 --repeats 2
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import corpus, dense

ROOT = corpus.CORPUS_DIR / "engines"
ENGINES = ("cli", "ray", "dask")


def split(source: Path, folder: Path, files: int) -> list[Path]:
    """Cut `source` at line starts into `files` files of about the same size."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    data = source.read_bytes()
    out, start = [], 0
    for k in range(1, files + 1):
        end = len(data) if k == files else data.index(b"\n", len(data) * k // files) + 1
        path = folder / f"part-{k:03d}.jsonl"
        path.write_bytes(data[start:end])
        out.append(path)
        start = end
    return out


def run_cli(src: Path, dst: Path, jobs: int) -> dict[str, float]:
    shutil.copytree(src, dst)
    files = sorted(str(p) for p in dst.glob("*.jsonl"))  # named: the cache is git-ignored
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "histnorm_cli.app", "fix", "--quiet", "--jobs", str(jobs), *files],
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise RuntimeError(done.stderr)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {"seconds": elapsed, "cpu": cpu}


def run_ray(src: Path, dst: Path, jobs: int) -> dict[str, float]:
    import ray
    import ray.data

    from histnorm.integrations.ray import LineDatasink, fix_dataset, read_lines

    started = time.perf_counter()
    ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    ray.data.DataContext.get_current().enable_progress_bars = False
    ready = time.perf_counter()
    fix_dataset(read_lines(str(src))).write_datasink(LineDatasink(dst, root=src))
    elapsed = time.perf_counter() - ready
    ray.shutdown()
    return {"seconds": elapsed, "startup": ready - started}


def run_dask(src: Path, dst: Path, jobs: int) -> dict[str, float]:
    import dask.bag as db

    from histnorm.integrations import dask as hd

    paths = sorted(str(p) for p in src.glob("*.jsonl"))
    started, cpu = time.perf_counter(), time.process_time()
    lines = db.read_text(paths, **hd.READ_TEXT)
    targets = hd.targets(paths, str(dst), root=str(src))
    scheduler = {"scheduler": "processes", "num_workers": jobs}
    if jobs == 1:
        scheduler = {"scheduler": "synchronous"}
    lines.map_partitions(hd.fix_partition).to_textfiles(targets, encoding=None, **scheduler)
    found = {"seconds": time.perf_counter() - started}
    if jobs == 1:  # all the work is in this process
        found["cpu"] = time.process_time() - cpu
    return found


RUNNERS = {"cli": run_cli, "ray": run_ray, "dask": run_dask}


def measure(engine: str, jobs: int, src: Path, dst: Path) -> dict[str, float]:
    """One run in a fresh interpreter (`--child`)."""
    if dst.exists():
        shutil.rmtree(dst)
    command = [sys.executable, "-m", "benchmarks.engines", "--child", engine, str(jobs)]
    done = subprocess.run(
        [*command, str(src), str(dst)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{engine} --jobs {jobs} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def same_tree(a: Path, b: Path) -> bool:
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    other = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    return files == other and all((a / f).read_bytes() == (b / f).read_bytes() for f in files)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.engines")
    parser.add_argument("--size", type=float, default=128, help="corpus size in MB")
    parser.add_argument("--files", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=2, help="best of N, interleaved")
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--child", nargs=4, metavar=("ENGINE", "JOBS", "SRC", "DST"))
    args = parser.parse_args()
    if args.child:
        engine, jobs, src, dst = args.child
        print(json.dumps(RUNNERS[engine](Path(src), Path(dst), int(jobs))))
        return
    info = dense.ensure("openai-chat", args.size)
    src = ROOT / "src"
    split(Path(info.path), src, args.files)
    size_mb = info.bytes / corpus.MB
    reference = ROOT / "reference"
    if reference.exists():
        shutil.rmtree(reference)
    measure("cli", 1, src, reference)
    best: dict[tuple[str, int], dict[str, float]] = {}
    for _ in range(args.repeats):
        for engine in args.engines.split(","):
            for jobs in (1, 2):
                out = ROOT / "out"
                found = measure(engine, jobs, src, out)
                if not same_tree(reference, out):
                    raise RuntimeError(f"{engine} --jobs {jobs}: output differs from the CLI's")
                key = (engine, jobs)
                if key not in best or found["seconds"] < best[key]["seconds"]:
                    best[key] = found
                print(f"{engine} x{jobs}: {found}", file=sys.stderr, flush=True)
    load = os.getloadavg()[0]
    print(f"\n{size_mb:.0f} MB in {args.files} files, {os.cpu_count()} CPUs, load {load:.1f}\n")
    print("| engine | workers | seconds | MB/s | speed-up | CPU s | MB per CPU s |")
    print("|---|---|---|---|---|---|---|")
    for engine in args.engines.split(","):
        for jobs in (1, 2):
            found = best[(engine, jobs)]
            one = best[(engine, 1)]["seconds"]
            extra = f" (+{found['startup']:.1f} s start)" if "startup" in found else ""
            cpu = found.get("cpu")
            per_cpu = f"{cpu:.1f} | {size_mb / cpu:.1f}" if cpu else "- | -"
            print(
                f"| {engine} | {jobs} | {found['seconds']:.1f}{extra} | "
                f"{size_mb / found['seconds']:.1f} | {one / found['seconds']:.2f}x | {per_cpu} |"
            )
    shutil.rmtree(ROOT / "out", ignore_errors=True)


if __name__ == "__main__":
    main()
