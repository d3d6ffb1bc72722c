"""The zoo plugin of GOHR: the env, the agent ``human`` (recorded play), the kind ``rule_set`` with its
hook (:mod:`zoo_gohr.rule_sets`), the shipped rule sets, the paper's feature map ``gohr-paper`` (of the
SARSA plugin's kind ``feature``, :mod:`zoo_sarsa.feature_maps`) and the ``zoo gohr`` commands."""

from __future__ import annotations

from zoo import AgentEntry, DocumentEntry, EnvEntry, hookimpl

from .engine.constants import ACTIONS
from .factories import make_env, make_vector_env
from .params import BoardParams, GohrEnvParams
from .rule_sets import RULE_SETS, RuleSetEntry

__all__ = ["BoardParams", "GohrEnvParams", "make_env", "make_vector_env"]


@hookimpl
def register_envs(register):
    register(EnvEntry(name="gohr", params=GohrEnvParams, factory=make_env, vector_factory=make_vector_env,
                      example={"rule": "paper/color_match", "horizon": 30},
                      description=f"the Game of Hidden Rules ({ACTIONS} actions: cell x bucket)"))


@hookimpl
def register_agents(register):
    from .web.recorded import HUMAN, HumanParams, refuse_training

    register(AgentEntry(name=HUMAN, params=HumanParams, factory=refuse_training, example=None,
                        description="people's recorded play (a 'zoo gohr serve' store) for leaderboards and "
                                    "reports; cannot be trained"))


@hookimpl
def register_features(register):
    from .vector.features import FEATURE_ENTRY

    register(FEATURE_ENTRY)


@hookimpl
def register_kinds(register):
    register(RULE_SETS)


@hookimpl
def register_rule_sets(register):
    from .named_rules import shipped_rule_sets

    descriptions = {"paper": "the GOHR paper's four sample rules (section 5.1)",
                    "gohr": "the authors' rule files (RuleGame game data and server samples)"}
    for name, path in shipped_rule_sets().items():
        register(RuleSetEntry(name=name, path=path, description=descriptions[name]))


def _validate_web_study(path, registry, build: bool) -> str:
    from .web.study import validate_study_file

    return validate_study_file(path, registry, build)


@hookimpl
def register_documents(register):
    register(DocumentEntry(name="web-study", marker=("consent", "rules", "completion"), validate=_validate_web_study,
                           description="a study of people playing hidden rules (zoo gohr serve --study)"))


@hookimpl
def register_commands(cli):
    from .cli import gohr_app

    cli.add_typer(gohr_app, name="gohr", help="GOHR tools: conformance against the real server, play, rules.")
