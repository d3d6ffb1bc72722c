"""zoo_learner is the library GDI, DiCE and LBC agents build on; it registers no agent itself.

It registers the search space ``substrate`` (the CPU-budget settings ``benchmarks/tuning/`` searches per
world), and its entry point makes it show in `zoo plugins` with its version.
"""

from pathlib import Path

from zoo import hookimpl


@hookimpl
def register_search_spaces(register):
    from zoo_tune.search_spaces import SearchSpaceEntry

    register(SearchSpaceEntry(name="substrate", path=Path(__file__).parent / "search_spaces" / "substrate.yaml",
                              description="the substrate agents' CPU-budget settings (benchmarks/tuning/ searches them "
                                          "per world)"))
