"""Rule names in specs: ``<rule set>/<path without .txt>``, or a path to a rule file."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

from zoo import did_you_mean, get_registry

from .engine.parser import load_rules
from .engine.ruleset import RuleSet


def shipped_rule_sets() -> dict[str, Path]:
    """The rule sets in the top-level ``rules/`` folder (installed as the data package zoo_rules)."""
    root = Path(str(resources.files("zoo_rules")))
    return {"paper": root / "paper", "gohr": root / "gohr" / "rules"}


def rule_sets() -> dict[str, Path]:
    """Every registered rule set, by name."""
    return {name: Path(entry.path) for name, entry in get_registry().entries["rule_set"].items()}


def rule_names(sets: dict[str, Path] | None = None) -> list[str]:
    """All addressable rule names."""
    names = []
    for set_name, root in sorted((sets or rule_sets()).items()):
        names += [f"{set_name}/{p.relative_to(root).with_suffix('').as_posix()}" for p in sorted(root.rglob("*.txt"))]
    return names


def resolve_rule(name: str, sets: dict[str, Path] | None = None) -> Path:
    """The file a rule name means; ValueError naming what would be valid otherwise."""
    sets = rule_sets() if sets is None else sets
    head, _, rest = name.partition("/")
    if head in sets and rest:
        candidate = sets[head] / f"{rest}.txt"
        if candidate.is_file():
            return candidate
    path = Path(name)
    if path.suffix == ".txt" and path.is_file():
        return path
    if path.is_dir():
        raise ValueError(f"{path} is a folder, not a rule file; give a .txt rule file or a rule name such as "
                         f"paper/color_match ('zoo gohr rules' lists them)")
    if head in ("", ".", ".."):  # a path, not a rule set
        raise ValueError(f"no rule file at {path}; give a .txt rule file or a rule name such as paper/color_match")
    if head not in sets and not path.suffix:
        raise ValueError(f"unknown rule set '{head}'{did_you_mean(head, list(sets))}; rule sets: {', '.join(sorted(sets))}"
                         " (or give the path of a .txt rule file)")
    if path.suffix:
        raise ValueError(f"no rule file at {path}")
    known = rule_names({head: sets[head]})
    raise ValueError(f"no rule '{name}' in rule set '{head}'{did_you_mean(name, known)}; "
                     f"'zoo gohr rules {head}' lists them")


@lru_cache(maxsize=256)
def _load(path: str, mtime: float) -> RuleSet:
    return load_rules(path)


def load_named_rules(name: str) -> RuleSet:
    """Parse the rule a name means (cached while the file is unchanged)."""
    path = resolve_rule(name)
    return _load(str(path), path.stat().st_mtime)
