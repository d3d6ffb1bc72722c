"""rl-baselines3-zoo's hyperparameter files as zoo specs.

An entry of ``hyperparams/<algo>.yml`` names an env id and the algorithm's settings together with
rl-baselines3-zoo's own keys (the budget, the vector env's wrappers, exploration noise). Settings
that are constructor arguments go to the agent block as they are, with the Python expressions
rl-baselines3-zoo writes as strings (``"dict(net_arch=[64], activation_fn=nn.ReLU)"``) read as
data, never evaluated. What has no place in a zoo spec is listed, one line per key, with why.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from zoo import Problem, SpecError, ZooError, did_you_mean, load_text, parse_spec

#: the file stems of rl-baselines3-zoo's hyperparameter files -> the zoo's agent
FILE_AGENTS = {"ppo": "ppo", "a2c": "a2c", "dqn": "dqn", "sac": "sac", "td3": "td3", "qrdqn": "qrdqn",
               "ppo_lstm": "recurrent-ppo"}
#: rl-baselines3-zoo's keys for the zoo's vector env, copied as they are
ENV_KEYS = ("n_envs", "frame_stack")
#: keys that hold a Python expression when written as a string
EXPRESSIONS = ("policy_kwargs", "replay_buffer_kwargs", "normalize")
#: rl-baselines3-zoo's keys the zoo has no place for, and why
UNSUPPORTED = {
    "env_wrapper": "the zoo's gym env takes no gymnasium wrappers; write an env plugin that applies it",
    "vec_env_wrapper": "the zoo's SB3 agents take no extra vector-env wrappers",
    "callback": "SB3 callbacks are not part of a zoo spec; the zoo checkpoints and evaluates on its own",
    "model_class": "HER's model class: the zoo has no her agent",
    "online_sampling": "HER's online sampling: the zoo has no her agent",
    "max_episode_length": "HER's episode length: the zoo has no her agent",
    "config": "rl-baselines3-zoo's Python config is not read",
}


@dataclass
class Imported:
    """A zoo spec made from an entry, and the entry's keys it could not map (key, reason)."""

    spec: dict[str, Any]
    unmapped: list[tuple[str, str]] = field(default_factory=list)

    def yaml(self, header: str) -> str:
        body = yaml.safe_dump(self.spec, sort_keys=False, default_flow_style=None, width=120)
        return "".join(f"# {line}\n" for line in header.splitlines()) + body


def read_entries(path: Path) -> dict[str, Any]:
    """The entries of a hyperparameter file, by env id."""
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as exc:
        raise ZooError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise ZooError(f"{path}: not YAML: {exc}") from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ZooError(f"{path}: not an rl-baselines3-zoo hyperparameter file (a mapping from env ids to settings)")
    return data


def agent_of(path: Path, algo: str | None) -> str:
    """The zoo agent for a file: from --algo, else from the file's name (ppo.yml)."""
    name = algo or path.stem
    if name not in FILE_AGENTS:
        where = "--algo" if algo else f"{path}: the file name"
        raise ZooError(f"{where} names no algorithm the zoo imports ({name!r}{did_you_mean(name, list(FILE_AGENTS))});"
                       f" known: {', '.join(FILE_AGENTS)} (rl-baselines3-zoo's file stems); give --algo")
    return FILE_AGENTS[name]


def import_entry(entries: dict[str, Any], env_id: str, agent: str, registry) -> Imported:
    """The zoo spec of `entries[env_id]`, checked against the installed plugins; refused settings are unmapped."""
    if env_id not in entries:
        raise ZooError(f"no entry {env_id!r} in the file{did_you_mean(env_id, list(entries))}; it has {len(entries)}:"
                       f" {', '.join(sorted(entries)[:20])}{' ...' if len(entries) > 20 else ''}")
    imported = Imported({"name": f"rlzoo-{agent}-{env_id}".replace(":", "-")[:100],
                         "env": {"type": "gym", "id": env_id}, "agent": {"type": agent}})
    agent_block = imported.spec["agent"]
    settings = dict(entries[env_id])
    noise = {key: settings.pop(key) for key in ("noise_type", "noise_std") if key in settings}
    for key, value in settings.items():
        if key in UNSUPPORTED:
            imported.unmapped.append((key, UNSUPPORTED[key]))
            continue
        if key in EXPRESSIONS and isinstance(value, str):
            try:
                value = python_value(value)
            except ValueError as exc:
                imported.unmapped.append((key, f"cannot read {value!r} as data: {exc}"))
                continue
        if key == "n_timesteps":
            imported.spec["budget"] = {"steps": int(float(value))}
        elif key == "normalize":
            _normalize(value, agent_block, imported.unmapped)
        else:
            agent_block[key] = value
    if noise:
        _noise(noise, agent_block, imported.unmapped)
    imported.spec.setdefault("budget", {"steps": 1_000_000})
    _drop_refused(imported, registry)
    return imported


def python_value(text: str) -> Any:
    """The data of a Python expression of literals, ``dict(...)`` calls and dotted names (kept as their text)."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"not a Python expression ({exc.msg})") from None
    return _data(tree.body)


def _data(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return -node.operand.value
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_data(item) for item in node.elts]
    if isinstance(node, ast.Dict) and None not in node.keys:
        return {_data(key): _data(value) for key, value in zip(node.keys, node.values)}
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict" and not node.args:
        return {keyword.arg: _data(keyword.value) for keyword in node.keywords}
    if isinstance(node, (ast.Name, ast.Attribute)):
        return ast.unparse(node)  # a class such as nn.ReLU; the params read it by name
    raise ValueError(f"{ast.unparse(node)} is neither a literal, a dict(...) nor a name")


def _normalize(value: Any, agent: dict[str, Any], unmapped: list[tuple[str, str]]) -> None:
    """rl-baselines3-zoo's ``normalize``: true (observations and rewards), or VecNormalize's keyword arguments."""
    if isinstance(value, bool):
        value = {"norm_obs": value, "norm_reward": value}
    if not isinstance(value, dict):
        unmapped.append(("normalize", f"expected true, false or VecNormalize's arguments (given {value!r})"))
        return
    for key, setting in value.items():
        target = {"norm_obs": "normalize_observations", "norm_reward": "normalize_rewards"}.get(key)
        if target is None:
            unmapped.append((f"normalize.{key}", "the zoo's VecNormalize takes norm_obs and norm_reward only"))
        else:
            agent[target] = setting


def _noise(noise: dict[str, Any], agent: dict[str, Any], unmapped: list[tuple[str, str]]) -> None:
    kind, std = noise.get("noise_type"), noise.get("noise_std")
    if kind in ("normal", "ornstein-uhlenbeck") and isinstance(std, (int, float)):
        agent["action_noise"] = {"type": kind, "std": float(std)}
    else:
        unmapped.append(("noise_type", f"expected normal or ornstein-uhlenbeck with a number noise_std (given {noise})"))


def _drop_refused(imported: Imported, registry) -> None:
    """Validate the spec; an agent setting the zoo refuses is dropped and listed, anything else is an error."""
    while True:
        try:
            parse_spec(load_text(yaml.safe_dump(imported.spec, sort_keys=False), "<imported>"), registry)
            return
        except SpecError as exc:
            problems: list[Problem] = exc.problems
        agent = imported.spec["agent"]
        refused = {p: _agent_setting(p, agent) for p in problems}
        if None in refused.values():
            raise SpecError([p for p, keys in refused.items() if keys is None])
        for problem, keys in refused.items():
            block = agent if len(keys) == 1 else agent[keys[0]]
            if block.pop(keys[-1], None) is not None:
                imported.unmapped.append((".".join(keys), f"refused by the zoo's {agent['type']} agent: {problem.message}"))


def _agent_setting(problem: Problem, agent: dict[str, Any]) -> tuple[str, ...] | None:
    """The agent setting a problem is about (a key, or a key of a mapping in it), if the import put it there."""
    path = (problem.field or "").split(".")
    if len(path) < 2 or path[0] != "agent" or path[1] not in agent or path[1] == "type":
        return None
    inner = agent[path[1]]
    return (path[1], path[2]) if len(path) >= 3 and isinstance(inner, dict) and path[2] in inner else (path[1],)
