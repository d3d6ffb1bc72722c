"""Image-and-property-based (IPB) objects: ``properties.csv`` catalogs (docs/algorithms/gohr-rules.md, "Board, buckets
and pieces")."""
from __future__ import annotations

import csv
import fnmatch
from pathlib import Path

RESERVED = ("image", "pos")


def read_properties(path, prefix: str = "") -> dict[str, dict]:
    """``{image key: {property: value}}`` from a ``properties.csv``; empty cells are undefined.

    Keys are ``prefix + image``; ``name`` is kept as an ordinary property.
    """
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    out: dict[str, dict] = {}
    for row in rows:
        image = (row.get("image") or "").strip()
        if not image:
            raise ValueError(f"{path}: every row needs an 'image' value")
        props = {k.strip(): v.strip() for k, v in row.items()
                 if k and k.strip() not in RESERVED and v is not None and v.strip() != ""}
        out[prefix + image] = props
    return out


def image_catalog(shapes_root, patterns) -> list[tuple[str, dict]]:
    """Resolve ``images`` wildcard keys (e.g. ``RU/JF/Trap/*.png``) against the ``properties.csv``
    of each pattern's directory under ``shapes_root``; deduplicated and sorted by key."""
    root = Path(shapes_root)
    found: dict[str, dict] = {}
    for pat in patterns:
        directory = pat.rsplit("/", 1)[0] if "/" in pat else ""
        table = read_properties(root / directory / "properties.csv", directory + "/" if directory else "")
        for key, props in table.items():
            if fnmatch.fnmatchcase(key, pat):
                found[key] = props
    if not found:
        raise ValueError(f"no image matches {list(patterns)}")
    return sorted(found.items())
