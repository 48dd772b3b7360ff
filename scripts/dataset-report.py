"""Per-repository figures of a dataset directory (until `query` exists): functions, each
class, references by kind and the share resolved to a kind other than unresolved."""

import collections
import sys

import pyarrow.parquet as pq


def rows(d, table, columns):
    return pq.read_table(f"{d}/{table}.parquet", columns=columns).to_pylist()


def main():
    d = sys.argv[1]
    repos = {r["repo_id"]: r for r in rows(d, "repos", ["repo_id", "name", "version", "status", "license"])}
    funcs = collections.Counter(r["repo_id"] for r in rows(d, "functions", ["repo_id"]))
    classes = collections.defaultdict(collections.Counter)
    for r in rows(d, "classifications", ["repo_id", "class"]):
        classes[r["repo_id"]][r["class"]] += 1
    kinds = collections.defaultdict(collections.Counter)
    unresolved = collections.Counter()
    for r in rows(d, "references", ["repo_id", "kind", "chain"]):
        kinds[r["repo_id"]][r["kind"]] += 1
        if r["kind"] == "unresolved":
            unresolved[r["chain"].split(".")[0]] += 1
    cls = ["self_contained", "weakly_self_contained", "repo_dependent", "rejected"]
    head = ["repository", "license", "functions", "self", "weakly", "repo-dep", "rejected", "references", "resolved"]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" for _ in head) + "|")
    total = collections.Counter()
    for rid, r in repos.items():
        if r["status"] != "ok":
            continue
        k = kinds[rid]
        n = sum(k.values())
        res = n - k["unresolved"]
        c = classes[rid]
        total.update({"functions": funcs[rid], "refs": n, "resolved": res, **c})
        print(f"| {r['name']} {r['version'] or ''} | {r['license']} | {funcs[rid]} | "
              + " | ".join(str(c[x]) for x in cls) + f" | {n} | {100 * res / max(n, 1):.2f}% |")
    n = total["refs"]
    print(f"| all | | {total['functions']} | " + " | ".join(str(total[x]) for x in cls)
          + f" | {n} | {100 * total['resolved'] / max(n, 1):.2f}% |")
    allk = collections.Counter()
    for k in kinds.values():
        allk.update(k)
    print("\nreferences by kind: " + ", ".join(f"{k} {v}" for k, v in allk.most_common()))
    if unresolved:
        print("most frequent unresolved names: " + ", ".join(f"{k} ({v})" for k, v in unresolved.most_common(12)))


if __name__ == "__main__":
    main()
