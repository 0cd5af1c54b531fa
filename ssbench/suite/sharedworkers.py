"""A suite's steps run one after another with the same workers.

SuiteRun keeps what steps share: one Master (the workers connect and are
configured once, before the first step) and, per scenario and container
set, the ObjectRing its first step populated, so that a later step of the
same scenario uploads nothing again.  Each step is a ScenarioRun of its
own (ssbench.master.scenariorun) with its own stats file, benchmark and
cleanup; what the steps keep between them does not grow with their
number.
"""
from __future__ import absolute_import, division, print_function

import logging

from ssbench.master.scenariorun import ScenarioRun

log = logging.getLogger(__name__)


def ring_key(scenario):
    """The objects a scenario's steps can share: the same file over the
    same containers."""
    return (scenario.source, scenario.container_base,
            scenario.container_count, scenario.policy)


class SuiteRun(object):
    """Runs steps (run_step()) through `transport` with the same workers;
    `swift` and `worker_config` as for a ScenarioRun."""

    def __init__(self, transport, swift=None, worker_config=None):
        self.transport = transport
        self.swift = swift
        self.worker_config = worker_config
        self.master = None
        self.rings = {}
        self.stop_requested = False
        # Set by the CLI: Master.workers_gone for local workers, and
        # their run's token (Admission.local_run).
        self.workers_gone = None
        self.local_run = None

    @property
    def workers(self):
        """The workers of the master the first step made ({} before)."""
        return self.master.workers if self.master is not None else {}

    def request_stop(self):
        """Ask the running step to stop, and the suite with it; True if it
        was already asked (the caller then stops at once)."""
        already = self.stop_requested
        self.stop_requested = True
        if self.master is not None:
            self.master.stop_requested = True
        return already

    def run_step(self, scenario, stats_paths, options):
        """Run one step (a RunOutcome): the first connects the workers; a
        step whose scenario ran before reuses its objects."""
        key = ring_key(scenario)
        run = ScenarioRun(scenario, self.transport, stats_paths, options,
                          swift=self.swift, worker_config=self.worker_config,
                          master=self.master, ring=self.rings.pop(key, None))
        if self.master is None:
            self.master = run.master
            self.master.workers_gone = self.workers_gone
            self.master.admission.local_run = self.local_run
            self.master.stop_requested = self.stop_requested
            run.connect()
        outcome = run.run_phases()
        if options.noop:
            # Nothing was created: the names a --noop step's CREATEs
            # left in the ring go, as a cleanup would take them, so that
            # the ring does not grow from step to step.
            run.ring.pop_created()
        if run.populated and outcome.error is None:
            self.rings[key] = run.ring
        return outcome
