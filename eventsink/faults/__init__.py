"""Delivery faults of at-least-once CDC, injected on demand between the MQ sinks and their
producer (``FaultyProducer``), chosen by a spec (``parse_faults``). See README.md."""

from tisink.eventsink.faults.injector import FaultInjector
from tisink.eventsink.faults.producer import FaultyProducer, faults_of
from tisink.eventsink.faults.report import (
    InjectedFault,
    ReportsFaults,
    injected_faults,
    merge_faults,
)
from tisink.eventsink.faults.spec import FAULT_KINDS, FaultPlan, FaultSpec, parse_faults

__all__ = [
    "FAULT_KINDS",
    "FaultInjector",
    "FaultPlan",
    "FaultSpec",
    "FaultyProducer",
    "InjectedFault",
    "ReportsFaults",
    "faults_of",
    "injected_faults",
    "merge_faults",
    "parse_faults",
]
