#!/usr/bin/env python3
"""Writes a generated contract of numbered clauses for the shipped-binary benchmarks.

Default: 200 articles x 10 sub-clauses x 10 paragraphs = 22,200 clauses (200 + 2,000 +
20,000), each paragraph with a time limit, a percentage and a reference to another clause,
every sub-clause with a defined term. The text is the same on every run (fixed seed).

    python3 bench/shipped/contract.py > /tmp/contract-22200.md
    python3 bench/shipped/contract.py --articles 20 > /tmp/contract-2220.md
"""

import argparse
import random
import sys

TOPICS = [
    "Payment", "Variations", "Insurance", "Termination", "Delay Damages", "Claims",
    "Site Data", "Assignment", "Confidentiality", "Notices", "Liability", "Disputes",
]
PARTIES = ["Employer", "Contractor", "Engineer"]


def contract(articles: int, subs: int, paragraphs: int, seed: int) -> str:
    rng = random.Random(seed)
    out = [
        "CONSTRUCTION CONTRACT\n\n",
        "This Contract is made between the Employer and the Contractor.\n\n",
    ]
    for article in range(1, articles + 1):
        topic = TOPICS[rng.randrange(len(TOPICS))]
        out.append(f"{article} {topic}\n\n")
        for sub in range(1, subs + 1):
            out.append(f"{article}.{sub} {topic} Provision\n")
            out.append(
                f'"{topic} {article}.{sub}" means the obligation of this Sub-Clause.\n\n'
            )
            for para in range(1, paragraphs + 1):
                party = PARTIES[rng.randrange(len(PARTIES))]
                days = rng.choice([7, 14, 28, 42, 56])
                percent = rng.randrange(1, 21)
                target = f"{rng.randrange(1, articles + 6)}.{rng.randrange(1, 13)}"
                out.append(
                    f"{article}.{sub}.{para} The {party} shall give notice within {days} days, "
                    f"failing which the claim is barred. The Employer shall pay {percent} per cent "
                    f"of the Contract Price under Clause {target}.\n\n"
                )
    return "".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=200)
    parser.add_argument("--subs", type=int, default=10, help="sub-clauses per article")
    parser.add_argument("--paragraphs", type=int, default=10, help="paragraphs per sub-clause")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    for name in ("articles", "subs", "paragraphs"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1, got {getattr(args, name)}")
    sys.stdout.write(contract(args.articles, args.subs, args.paragraphs, args.seed))


if __name__ == "__main__":
    main()
