"""Reports and statistics: ``zoo report`` and ``zoo compare``, the generic report, and :mod:`zoo_report.stats`.

Runs of an environment with a registered :class:`zoo_report.reporters.ReporterEntry` get that reporter's figures and
tables; any other run gets the generic report of :mod:`zoo_report.report`. Plugins that write their
own reports (GOHR studies, Atari) build on :mod:`zoo_report.stats` and :mod:`zoo_report.report`.
"""
