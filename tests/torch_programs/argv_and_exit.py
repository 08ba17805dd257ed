"""A command-line program: argparse over sys.argv, __name__, and an exit status."""
import argparse
import sys

import torch


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="sum a range of numbers")
    parser.add_argument("n", type=int)
    parser.add_argument("--fail", action="store_true")
    args = parser.parse_args(argv)
    print("argv", sys.argv[1:], "name", __name__)
    print(torch.arange(args.n).sum())
    if args.fail:
        raise ValueError(f"asked to fail with n={args.n}")
    return 3 if args.n > 5 else 0


if __name__ == "__main__":
    sys.exit(main())
