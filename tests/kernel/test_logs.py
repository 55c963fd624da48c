"""The codemode loggers in the kernel write through ipykernel's handlers, from the level
those handlers let through (traitlets keeps its application logger at DEBUG and filters in
the handlers)."""

from __future__ import annotations

import logging
import sys

import pytest

from codemode.kernel.logs import route_library_logging

pytestmark = pytest.mark.unit


@pytest.fixture
def library():
    logger = logging.getLogger("codemode")
    saved = (list(logger.handlers), logger.level, logger.propagate)
    logger.handlers, logger.level = [], logging.NOTSET
    yield logger
    logger.handlers, logger.level, logger.propagate = saved


def app_log(handler_level):
    """A logger set up as traitlets sets an application's: DEBUG, one filtering handler."""
    log = logging.Logger("CodeModeKernelApp-test", logging.DEBUG)
    records = []
    handler = logging.Handler(handler_level)
    handler.emit = records.append
    log.addHandler(handler)
    return log, records


def made_records(action):
    """How many LogRecords ``action()`` made (whatever their fate)."""
    made = []
    factory = logging.getLogRecordFactory()

    def counting(*args, **kwargs):
        made.append(args[0])
        return factory(*args, **kwargs)

    logging.setLogRecordFactory(counting)
    try:
        action()
    finally:
        logging.setLogRecordFactory(factory)
    return len(made)


def test_at_the_default_level_a_debug_call_makes_no_record_and_warnings_are_written(library):
    log, written = app_log(logging.WARNING)
    route_library_logging(log)
    child = logging.getLogger("codemode.host")
    assert library.level == logging.WARNING
    assert made_records(lambda: child.debug("cell %s closed", "1")) == 0
    child.warning("tool %s failed", "t")
    assert [record.getMessage() for record in written] == ["tool t failed"]


def test_with_debug_logging_asked_for_debug_records_are_written(library):
    log, written = app_log(logging.DEBUG)
    route_library_logging(log)
    logging.getLogger("codemode.dispatch").debug("tool %s raised", "t")
    assert library.level == logging.DEBUG
    assert [record.getMessage() for record in written] == ["tool t raised"]


def test_without_handlers_warnings_go_to_the_process_stderr_not_to_the_root_logger(library):
    route_library_logging(object())
    [handler] = library.handlers
    assert (library.level, library.propagate) == (logging.WARNING, False)
    assert isinstance(handler, logging.StreamHandler) and handler.stream is sys.__stderr__
