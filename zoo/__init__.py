"""zoo: a plugin zoo for reinforcement-learning research.

This module is the kernel's published API: everything a plugin may use from ``zoo`` is imported here,
and plugins import it from here only (``from zoo import AgentEntry, hookimpl``). The modules under
``zoo/`` (``zoo.store``, ``zoo.run``, ...) are private: they may be renamed or split in any release,
and the architecture contract in ``pyproject.toml`` (``lint-imports``) fails on a plugin that imports
one. The built-in plugins under ``plugins/`` keep to the same rule as a third-party package.
"""

__version__ = "0.1.0"

# The imports are grouped by topic, not sorted: this listing is the API's table of contents.
# isort: skip_file

# Hooks: mark a plugin's hook functions with `hookimpl`; a plugin that declares hooks of its own
# (a kind of entry that other plugins register) marks their specifications with `hookspec`.
from .hookspecs import hookimpl, hookspec

# What a plugin registers, and the params models of those entries.
from .entries import (
    AgentEntry,  # an agent: factory(params, context) -> Agent
    BackendEntry,  # where a run's trial groups train (the local pool is the kernel's own)
    BackendOption,  # a command-line option a backend adds to the commands that start runs
    BackendParams,  # the fields every backend's params have
    DocumentEntry,  # a kind of YAML file that `zoo validate` recognises (a study, a board)
    Entry,  # the fields common to every entry (the base of a plugin's own kinds of entry)
    EnvEntry,  # an environment: factory(params, seed) -> env
    KindEntry,  # a kind of entry of a plugin's own, registered through that plugin's hook
    MetaControllerEntry,  # a meta-controller: factory(params, behavior_space, rng) -> MetaController
    NoParams,  # the params of an entry that takes none
    Params,  # the base of every params model: unknown keys are errors
    TrackerEntry,  # an experiment tracker (TensorBoard, MLflow, W&B) that a spec's logging block selects
    seeded_env,  # an env as factories return it: reset with the seed, its action space seeded
)

# The agent contract, and the behavior-space contract between agents and meta-controllers.
from .agent import (
    Agent,  # a trainable agent: learn in chunks, checkpoint between them
    EpisodeResets,  # the reset seeds of a trial's episodes, replayable after a resume
    TrialContext,  # what an agent factory gets besides its params
)
from .behavior import (
    BehaviorSpace,  # the choices an agent offers a meta-controller
    BestRegion,  # the region of a behavior space a meta-controller currently favours
    Choice,  # one choice of a meta-controller for an episode
    Coordinate,  # one axis of a behavior space
    MetaController,  # picks a behavior per episode from the returns it is told
    MetaControllerFactory,  # what a meta-controller entry's factory is
)

# Errors: raise `ZooError` (or a subclass) for anything a user can fix; the CLI prints its message.
from .errors import (
    Problem,  # one thing wrong with an input, and where it is
    RunFailed,  # a run that started and then failed (exit status 1)
    SpecError,  # a file that cannot be used, with every problem found (exit status 2)
    ZooError,  # a user-facing error, printed without a traceback
    did_you_mean,  # " (did you mean 'x'?)" for the closest of some choices
)
# Failures inside plugins: name the plugin, the entry and the call that raised, in one line.
from .culprits import (
    PluginFailed,  # a run failed inside a plugin's env, agent, meta-controller or reporter
    blame,  # the PluginFailed of an exception raised inside one of some suspects, or None
    in_space,  # whether an observation lies in a gymnasium space (the run loop's cheap env check)
    suspect,  # a suspect for blame: a kind of entry, the entry and the call it was in
)

# Spec files: YAML with the place of every key, run specs built from the registry, command-line overrides.
from .overrides import Overrides  # the --set/--seed/--trials/--backend overrides of one command line
from .spec import (
    SpecBase,  # the fields common to every run spec
    json_schema,  # the JSON Schema of run specs for the installed plugins
    load_spec_text,  # a run spec from YAML text
    parse_spec,  # a run spec from a parsed document, or a SpecError listing every problem
    reading_resolved_spec,  # in a params validator: whether it reads a run's resolved spec (fill nothing in)
    tagged_model,  # the params model of a spec block with its `type` tag
)
from .yamlio import (
    Loc,  # the key path of a value in a document
    LocatedDocument,  # a parsed YAML document and the line and column of each key path
    load_file,  # read and parse a YAML file (a SpecError if missing, unreadable or malformed)
    load_text,  # parse YAML text
)

# The registry of loaded plugins and their entries.
from .registry import Registry, get_registry

# Run folders and their files: the manifest, checkpoints, metrics and returns.
from .checkpoints import COMPLETE  # the marker file of a checkpoint written in full
from .metrics import MetricLogger, read_metrics  # write and read a trial's metrics.jsonl
from .returns import FINAL_FRACTION, final_returns, trial_returns  # training returns read back from metrics
from .store import (
    MANIFEST,  # a run folder's manifest file name (run.json)
    RUN_STATUSES,  # the statuses a run's manifest records, in the order a run goes through them
    RunFolder,  # a run's directory: manifest, resolved spec, one folder per trial
    atomic_write_json,  # write JSON so that readers see the old file or the new one, never a part
    atomic_write_text,  # the same for text
    default_runs_dir,  # $ZOO_RUNS_DIR or ./runs
    find_run,  # the run folder a run folder's path or a run id names
    iter_checkpoints,  # a trial's complete checkpoints, oldest first
    now,  # the current UTC time as the run folders record it
    read_json,  # a JSON file, or a ZooError naming it if damaged
)
from .integrity import (
    lost_row_notes,  # the metrics rows a run lost, one line each, as its reports must state them
    trial_progress,  # a trial's progress in its budget, and whether it finished
)
from .tracking import TENSORBOARD, Tracker, TrialRecord  # trackers: the built-in name, the contract, a trial's record
from .extras import require_extra  # one error line naming the extra to install when a library is missing
from .trained import load_agent  # the agent of a trial of a run, with a checkpoint's weights

# Training and resuming runs, and what a backend needs to run trial groups.
from .console import StopFlag  # set by the first SIGINT/SIGTERM: trials stop at their next checkpoint
from .run import (
    backend_for,  # the backend a spec names, built by its entry
    execute_run,  # run (or finish) every trial of a prepared run
    preflight,  # build the first trial once so that errors surface before a run folder exists
    prepare_run,  # validate a spec with overrides and create its run folder
)
from .trials import (
    RESOLVED_SPEC,  # a run folder's resolved spec file name (spec.yaml)
    Interrupted,  # a trial stopped at a checkpoint because the user asked it to
    Report,  # report(trial, done, running): the progress callback a backend passes to run_trials
    build_trial,  # the logger, meta-controller and agent of one trial
    group_dir,  # where a trial group keeps its checkpoints
    load_run_spec,  # the resolved spec of a run folder, validated against the installed plugins
    run_trials,  # train one trial group to its budget, resuming from its newest checkpoint
    trial_groups,  # how a run's trials are grouped for the workers
)
from .workers import WorkerFailed  # a worker that ended without finishing its trials

# Command-line options shared by every command that starts runs (train, tune, study).
from .options import (
    BackendChoice,  # what the command line says of the backend
    backend_options,  # decorator: --backend and every registered backend's options
    seed_option,  # --seed
    set_option,  # --set KEY.PATH=VALUE
    trials_option,  # --trials
)

__all__ = [
    # hooks
    "hookimpl", "hookspec",
    # entries and params
    "AgentEntry", "BackendEntry", "BackendOption", "BackendParams", "DocumentEntry", "Entry", "EnvEntry",
    "KindEntry", "MetaControllerEntry", "NoParams", "Params", "TrackerEntry", "seeded_env",
    # agents and behavior spaces
    "Agent", "EpisodeResets", "TrialContext",
    "BehaviorSpace", "BestRegion", "Choice", "Coordinate", "MetaController", "MetaControllerFactory",
    # errors
    "Problem", "RunFailed", "SpecError", "ZooError", "did_you_mean",
    "PluginFailed", "blame", "in_space", "suspect",
    # specs and YAML
    "Overrides", "SpecBase", "json_schema", "load_spec_text", "parse_spec", "reading_resolved_spec", "tagged_model",
    "Loc", "LocatedDocument", "load_file", "load_text",
    # registry
    "Registry", "get_registry",
    # run folders
    "COMPLETE", "MANIFEST", "RUN_STATUSES", "MetricLogger", "RunFolder", "atomic_write_json", "atomic_write_text",
    "default_runs_dir", "find_run", "iter_checkpoints", "now", "read_json", "read_metrics",
    "FINAL_FRACTION", "final_returns", "trial_returns", "lost_row_notes", "trial_progress",
    "load_agent",
    # tracking, and the extras that plugins need
    "TENSORBOARD", "Tracker", "TrialRecord", "require_extra",
    # training, resuming, backends
    "StopFlag", "backend_for", "execute_run", "preflight", "prepare_run",
    "RESOLVED_SPEC", "Interrupted", "build_trial", "group_dir", "load_run_spec", "run_trials", "trial_groups",
    "Report", "WorkerFailed",
    # command-line options
    "BackendChoice", "backend_options", "seed_option", "set_option", "trials_option",
    "__version__",
]
