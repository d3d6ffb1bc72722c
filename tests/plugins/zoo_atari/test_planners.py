"""The ALE paper's planners: BFS and UCT against brute force on toy trees, UCB1 on hand-set statistics,
per-node discounted backups, duplicate pruning, tree reuse, determinism, the emulator's clone/restore
(real ALE) and the agents end to end on SyntheticAtari's corridor-with-trap."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from zoo_atari.env import make_atari_env
from zoo_atari.planners.bfs import bfs_action
from zoo_atari.planners.model import EmulatorModel
from zoo_atari.planners.uct import UCT, Node, ucb1_choice
from zoo_atari.protocols import Protocol

from zoo import execute_run, prepare_run
from zoo.errors import ZooError
from zoo.registry import get_registry

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


class TreeGame:
    """A toy `Model`: the state is the action history, each step's reward a fixed random number of it.

    The game is over at `depth` or at a history the seed marks terminal (one in five); stepping past
    the end keeps paying rewards, so a planner that expands a finished game gets wrong values.
    `alias` maps actions onto others that lead to the same state (duplicates).
    """

    def __init__(self, actions: int, depth: int, seed: int, alias: dict[int, int] | None = None,
                 terminal_chance: float = 0.2):
        self.actions, self.depth, self.seed, self.alias = actions, depth, seed, alias or {}
        self.terminal_chance = terminal_chance
        self.history: tuple[int, ...] = ()
        self.steps = self.clones = 0

    def draw(self, history) -> tuple[float, bool]:
        rng = np.random.default_rng([self.seed, len(history), *history])
        return float(rng.normal()), bool(rng.random() < self.terminal_chance)

    def clone(self):
        self.clones += 1
        return self.history

    def restore(self, state) -> None:
        self.history = state

    def step(self, action: int) -> tuple[float, bool]:
        self.steps += 1
        self.history += (self.alias.get(action, action),)
        reward, terminal = self.draw(self.history)
        return reward, terminal or len(self.history) >= self.depth

    def same(self, a, b) -> bool:
        return a == b


def brute_force(game: TreeGame, depth: int, gamma: float) -> np.ndarray:
    """Per first action, the best discounted return over every action sequence of `depth` steps."""
    best = np.full(game.actions, -np.inf)
    for sequence in itertools.product(range(game.actions), repeat=depth):
        game.restore(())
        total = 0.0
        for t, action in enumerate(sequence):
            reward, over = game.step(action)
            total += gamma**t * reward
            if over:
                break
        best[sequence[0]] = max(best[sequence[0]], total)
    return best


def tree_size(game: TreeGame, depth: int) -> int:
    """Nodes of the game's tree down to `depth` (a finished game has no children)."""
    nodes, level = 0, [()]
    for _ in range(depth):
        following = []
        for history in level:
            for action in range(game.actions):
                game.restore(history)
                _, over = game.step(action)
                nodes += 1
                if not over:
                    following.append(game.history)
        level = following
    return nodes


@pytest.mark.parametrize("depth", [1, 2, 4])
def test_bfs_takes_the_best_discounted_first_action_of_the_levels_it_completes(depth):
    gamma, rng = 0.5, np.random.default_rng(0)
    discount_mattered = False
    for seed in range(25):
        game = TreeGame(actions=3, depth=4, seed=seed)
        best, size = brute_force(game, depth, gamma), tree_size(game, depth)
        game.restore(())
        assert bfs_action(game, size, gamma, rng) == int(np.argmax(best))
        assert game.history == ()  # the search restores the state it started from
        discount_mattered |= int(np.argmax(brute_force(game, depth, 1.0))) != int(np.argmax(best))
    assert discount_mattered or depth == 1


@pytest.mark.parametrize("budget", [3, 50, 100, 121])
def test_bfs_spends_its_whole_node_budget_and_keeps_only_the_states_it_expands(budget):
    game = TreeGame(actions=3, depth=10, seed=0, terminal_chance=0.0)
    bfs_action(game, budget, 0.9, np.random.default_rng(0))
    assert game.steps == budget
    assert game.clones == -(-budget // 3)  # the root and every other node that gets children, nothing more


def test_bfs_breaks_ties_at_random():
    game = TreeGame(actions=3, depth=1, seed=0, alias={1: 0, 2: 0})  # three actions, one outcome
    rng = np.random.default_rng(0)
    assert {bfs_action(game, 3, 0.9, rng) for _ in range(40)} == {0, 1, 2}


def test_ucb1_on_hand_set_statistics():
    def parent(stats):
        node = Node(state=None, visits=sum(n for n, _ in stats), expanded=True)
        node.children = {a: Node(state=None, visits=n, total=n * mean) for a, (n, mean) in enumerate(stats)}
        return node

    rng = np.random.default_rng(0)
    stats = [(2, 0.5), (5, 0.7), (3, 0.6)]  # n(parent) = 10
    # C = 1: 0.5 + sqrt(ln 10 / 2) = 1.573 > 0.6 + sqrt(ln 10 / 3) = 1.476 > 0.7 + sqrt(ln 10 / 5) = 1.379
    assert ucb1_choice(parent(stats), 1.0, rng) == 0
    # C = 0.1: 0.768 (action 1) > 0.688 > 0.607
    assert ucb1_choice(parent(stats), 0.1, rng) == 1
    # C = 0.3: 0.7 + 0.3 sqrt(ln 10 / 5) = 0.9036 > 0.6 + 0.3 sqrt(ln 10 / 3) = 0.8628 > 0.5 + 0.3 sqrt(ln 10 / 2) = 0.8219
    assert ucb1_choice(parent(stats), 0.3, rng) == 1
    # C = 0.6: 0.5 + 0.6 * 1.0730 = 1.1438 > 0.6 + 0.6 * 0.8761 = 1.1256 > 0.7 + 0.6 * 0.6786 = 1.1072
    assert 0.5 + 0.6 * math.sqrt(math.log(10) / 2) > 0.6 + 0.6 * math.sqrt(math.log(10) / 3)
    assert ucb1_choice(parent(stats), 0.6, rng) == 0
    # untried children come first, uniformly among them, whatever the others' scores
    untried = parent([(4, 100.0), (0, 0.0), (0, 0.0), (6, 100.0)])
    assert {ucb1_choice(untried, 1.0, rng) for _ in range(40)} == {1, 2}


class Chain:
    """One action; step k pays rewards[k]; the game ends after the last reward."""

    actions = 1

    def __init__(self, rewards):
        self.rewards, self.position = rewards, 0

    def clone(self):
        return self.position

    def restore(self, state) -> None:
        self.position = state

    def step(self, action):
        reward = self.rewards[self.position]
        self.position += 1
        return reward, self.position == len(self.rewards)

    def same(self, a, b):
        return a == b


def discounted(rewards, gamma) -> float:
    return sum(gamma**t * r for t, r in enumerate(rewards))


@pytest.mark.parametrize("horizon", [3, 8])
@pytest.mark.parametrize("normalise", [False, True])
def test_uct_backs_up_the_discounted_return_of_each_node(horizon, normalise):
    rewards, gamma = [0.0, 4.0, -2.0, 0.0, 3.0, 1.0], 0.9
    search = UCT(Chain(rewards), simulations=7, horizon=horizon, exploration=0.1, gamma=gamma,
                 normalise_rewards=normalise)
    search.choose(np.random.default_rng(0))
    scale = 4.0 if normalise else 1.0  # the first non-zero reward's magnitude
    node, depth = search.root, 0
    while node.children:
        node, depth = node.children[0], depth + 1
        # the node at depth d holds the return from its own reward to the horizon, discounted per node
        expected = discounted(rewards[depth - 1:horizon], gamma) / scale
        assert node.visits > 0 and node.mean == pytest.approx(expected)
    assert depth == min(horizon, len(rewards))


def test_uct_prunes_actions_that_reach_the_same_state():
    game = TreeGame(actions=5, depth=3, seed=1, alias={3: 1, 4: 0})
    pruned = UCT(game, simulations=20, horizon=3, exploration=0.1, gamma=0.9)
    pruned.choose(np.random.default_rng(0))
    assert sorted(pruned.root.children) == [0, 1, 2]
    game.restore(())
    kept = UCT(game, simulations=20, horizon=3, exploration=0.1, gamma=0.9, prune_duplicates=False)
    kept.choose(np.random.default_rng(0))
    assert sorted(kept.root.children) == [0, 1, 2, 3, 4]


def test_uct_finds_the_best_first_action_of_toy_trees():
    # returns of these trees span about -4..4, so C is of that size; near ties (a lead under 0.2) take
    # UCT's averaged means far longer to separate and are left out
    gamma, tried = 0.9, 0
    for seed in range(14):
        game = TreeGame(actions=3, depth=4, seed=seed)
        best = brute_force(game, 4, gamma)
        if np.diff(np.sort(best))[-1] < 0.2:
            continue
        game.restore(())
        search = UCT(game, simulations=1000, horizon=4, exploration=4.0, gamma=gamma, normalise_rewards=False)
        assert search.choose(np.random.default_rng(seed)) == int(np.argmax(best)), seed
        tried += 1
    assert tried >= 10


def play(search: UCT, game: TreeGame, rng, decisions: int) -> list:
    """(action, root visits per child) of each decision."""
    record = []
    for _ in range(decisions):
        action = search.choose(rng)
        record.append((action, {a: c.visits for a, c in search.root.children.items()}))
        _, over = game.step(action)
        search.advance(action)
        if over:
            break
    return record


def test_uct_reuses_the_played_subtree_and_is_deterministic_for_a_seed():
    runs = []
    for _ in range(2):
        game = TreeGame(actions=4, depth=6, seed=3)
        search = UCT(game, simulations=60, horizon=5, exploration=0.5, gamma=0.95)
        runs.append(play(search, game, np.random.default_rng(7), decisions=4))
    assert runs[0] == runs[1] and len(runs[0]) >= 2
    # with reuse the next root starts from the chosen child's visits
    (action, visits), (_, next_visits) = runs[0][:2]
    assert sum(next_visits.values()) == visits[action] - 1 + 60
    game = TreeGame(actions=4, depth=6, seed=3)
    fresh = play(UCT(game, simulations=60, horizon=5, exploration=0.5, gamma=0.95, reuse_tree=False), game,
                 np.random.default_rng(7), 2)
    assert sum(fresh[1][1].values()) == 60


def test_uct_drops_the_tree_when_the_game_went_elsewhere():
    game = TreeGame(actions=3, depth=5, seed=2)
    search = UCT(game, simulations=30, horizon=4, exploration=0.5, gamma=0.9)
    action = search.choose(np.random.default_rng(0))
    game.step((action + 1) % 3)  # not the action the tree expects
    search.advance(action)
    search.choose(np.random.default_rng(0))
    assert search.root.state == game.history and search.root.visits == 30


def test_a_restored_emulator_state_replays_the_same_future():
    # sticky actions draw from the emulator's random generator, which the clone must carry
    protocol = Protocol.model_validate({"name": "ale2013", "sticky_actions": 0.25})
    env = make_atari_env("pong", protocol, seed=3)
    env.reset(seed=3)
    model = EmulatorModel(env, frames=5, max_episode_frames=18_000)
    actions = np.random.default_rng(0).integers(model.actions, size=60)
    for action in actions[:10]:
        model.step(int(action))
    state = model.clone()

    def future():
        record = []
        for action in actions:
            reward, over = model.step(int(action))
            record.append((model.ale.getRAM().tobytes(), model.ale.getScreen().tobytes(), reward, over))
        return record

    first = future()
    model.restore(state)
    assert future() == first
    model.restore(state)
    assert model.same(state, model.clone())
    env.close()


@pytest.mark.parametrize("frames, cap, ends_at", [(2, 18_000, 5), (1, 4, 4), (3, 7, 3)])
def test_the_model_ends_the_game_at_game_over_or_the_episode_cap(frames, cap, ends_at):
    from zoo_atari.synthetic_env import SyntheticAtariEnv

    env = SyntheticAtariEnv("catch")
    env.reset(seed=0)
    model = EmulatorModel(env, frames=frames, max_episode_frames=cap)
    ends = [model.step(0)[1] for _ in range(ends_at)]
    assert ends == [False] * (ends_at - 1) + [True]  # catch's ball lands on frame 9


CORRIDOR = """
env: {{type: synthetic-atari, game: corridor-with-trap, frame_skip: 8, full_action_space: false}}
agent: {{type: {agent}, {params}}}
budget: {{episodes: 2, eval_episodes: 2}}
seed: 1
logging: {{tensorboard: false, progress: false}}
"""


def run_planner(tmp_path, agent: str, params: str) -> tuple[list[float], list[float]]:
    """(logged episode returns, evaluation returns) of a planner on corridor-with-trap."""
    tmp_path.mkdir(exist_ok=True)
    source = tmp_path / f"{agent}.yaml"
    source.write_text(CORRIDOR.format(agent=agent, params=params))
    registry = get_registry()
    folder = prepare_run(source, registry, tmp_path / "runs")
    assert execute_run(folder, registry, progress=False) == "finished"
    rows = [json.loads(line) for line in (folder.trial_dir(0) / "metrics.jsonl").read_text().splitlines()]
    result = json.loads((folder.trial_dir(0) / "result.json").read_text())
    return [r["episode_return"] for r in rows if "episode_return" in r], result["eval_returns"]


@pytest.mark.parametrize("agent, short, long", [
    # one decision (8 frames) of look-ahead sees the coin's +1, two see its -10 trap and the exit's +5
    ("bfs", "max_frames: 24", "max_frames: 96"),
    ("uct", "simulations: 30, horizon_frames: 8", "simulations: 30, horizon_frames: 16"),
])
def test_planners_look_past_the_trap_with_a_deeper_search(tmp_path, agent, short, long):
    greedy, evaluated = run_planner(tmp_path / "short", agent, short)
    assert greedy == evaluated == [-9.0, -9.0]  # evaluation is the played episodes
    assert run_planner(tmp_path / "long", agent, long)[0] == [5.0, 5.0]


def test_a_planner_refuses_more_evaluation_episodes_than_it_plays(tmp_path):
    source = tmp_path / "bfs.yaml"
    source.write_text(CORRIDOR.format(agent="bfs", params="max_frames: 24").replace("eval_episodes: 2", "eval_episodes: 3"))
    with pytest.raises(ZooError, match="eval_episodes 3 is more than the 2 episodes"):
        prepare_run(source, get_registry(), tmp_path / "runs")  # its preflight builds the agent
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


PONG = """
name: {agent}
env: {{type: atari, game: Pong, protocol: {{name: ale2013, max_episode_frames: 100}}}}
agent: {{type: {agent}, {params}}}
budget: {{episodes: 2, eval_episodes: 2}}
logging: {{tensorboard: false, progress: false}}
"""


def test_the_report_puts_the_planners_beside_the_learners(tmp_path):
    from zoo_atari import scores as S
    from zoo_report.report import report

    registry, folders = get_registry(), {}
    for agent, params in (("bfs", "max_frames: 90"), ("uct", "simulations: 3, horizon_frames: 10"),
                          ("ale-baseline", "policy: random")):
        source = tmp_path / f"{agent}.yaml"
        source.write_text(PONG.format(agent=agent, params=params))
        folders[agent] = prepare_run(source, registry, tmp_path / "runs")
        assert execute_run(folders[agent], registry, progress=False) == "finished"
    report(registry, list(folders.values()), tmp_path / "out")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    scores = {row["algorithm"]: row["score"] for row in summary["runs"]}
    (entry,) = summary["planning"]
    assert entry["game"] == "pong" and entry["bfs"] == scores["bfs"] and entry["uct"] == scores["uct"]
    assert entry["best_learner"] is None  # the baseline is no learner
    paper = {name: S.column("ale-scores.csv", name)["pong"] for name in ("basic", "bass", "disco", "lsh", "ram")}
    assert entry["paper_best_learner"] == list(max(paper.items(), key=lambda item: item[1]))
    text = (tmp_path / "out" / "report.md").read_text()
    assert "## Planning (ALE paper, Section 3.2)" in text and f"| Pong | {scores['bfs']:.1f} | {scores['uct']:.1f} |" in text


@pytest.mark.parametrize("spec, search", [
    ("ale-bfs.yaml", "agent.max_frames=90"),
    ("ale-uct.yaml", "agent.simulations=2 agent.horizon_frames=20"),
])
def test_the_shipped_planner_specs_run_with_only_their_search_and_length_cut(tmp_path, spec, search):
    """The paper's settings of examples/ale-{bfs,uct}.yaml as shipped; only the search, the episode cap and the
    number of episodes are cut (the shipped ones cost CPU-hours per episode)."""
    import yaml

    from zoo.overrides import Overrides
    from zoo.trials import RESOLVED_SPEC

    cuts = Overrides((*search.split(), "env.protocol.max_episode_frames=60", "budget.episodes=1", "budget.eval_episodes=1"))
    registry = get_registry()
    folder = prepare_run(EXAMPLES / spec, registry, tmp_path / "runs", overrides=cuts)
    assert execute_run(folder, registry, progress=False) == "finished"
    resolved = yaml.safe_load((folder.path / RESOLVED_SPEC).read_text())
    shipped = yaml.safe_load((EXAMPLES / spec).read_text())
    assert (resolved["env"]["game"], shipped["env"]["game"]) == ("space_invaders", "SpaceInvaders")  # normalised
    assert resolved["env"]["protocol"]["frame_skip"] == 5 and resolved["agent"]["gamma"] == shipped["agent"]["gamma"]
    returns = json.loads((folder.trial_dir(0) / "result.json").read_text())["eval_returns"]
    assert len(returns) == 1 and returns[0] >= 0  # Space Invaders scores no negative points


def test_a_planner_refuses_an_env_without_an_emulator_to_clone(tmp_path):
    source = tmp_path / "uct.yaml"
    source.write_text("env: {type: gym, id: CartPole-v1}\nagent: {type: uct}\nbudget: {episodes: 1}\n")
    with pytest.raises(ZooError, match="env.type atari or synthetic-atari, not CartPoleEnv"):
        prepare_run(source, get_registry(), tmp_path / "runs")
