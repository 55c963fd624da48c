"""Python functions as tools: the :func:`tool` decorator and the ``[python_tools]`` loader.

A function marked with ``@codemode.tool`` in a module listed under ``[python_tools] modules``
becomes a tool named after the function. Its input JSON Schema is built by pydantic from the
type hints (parameters without a hint accept any JSON), with parameter descriptions taken from
a Google-style ``Args:`` section of the docstring; the docstring's first paragraph is the
description. Sync functions run in a thread of their own (:data:`codemode.tools.threads.PYTHON_TOOLS`:
a call that blocks for ever and is cancelled never holds up other calls), async ones on an
event loop shared by the async tools in a thread of its own, never the kernel's
(:data:`codemode.tools.loops.ASYNC_PYTHON_TOOLS`: one that blocks its loop instead of awaiting
is abandoned with that loop, and the next calls get a fresh one). Any exception, ``BaseException`` included, rejects only that call's JS promise,
with ``tool `<name>` raised <Type>: <message>`` (:func:`codemode.tools.failures.failure_text`);
a result that pydantic cannot turn into JSON rejects it with a sentence too. What a call prints
to ``sys.stdout`` / ``sys.stderr`` goes to ``ctx.report_output`` (the dispatcher's ``output``
events; :mod:`codemode.tools.tool_output`), so the kernel shows it in the calling cell.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import logging
import re
from collections.abc import Callable
from typing import Any

import pydantic
from pydantic_core import to_jsonable_python

from codemode.errors import ToolCallError
from codemode.tools.base import Tool, ToolContext
from codemode.tools.failures import exception_text
from codemode.tools.loops import ASYNC_PYTHON_TOOLS
from codemode.tools.threads import PYTHON_TOOLS
from codemode.tools.tool_output import route_output

logger = logging.getLogger(__name__)

MARK = "__codemode_tool__"


def tool(
    fn: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    parallel: bool = True,
) -> Any:
    """Mark ``fn`` as a code-mode tool; usable as ``@tool`` or ``@tool(name=..., parallel=False)``.

    ``name`` overrides the function name; ``description`` the docstring summary; ``parallel``
    False makes calls exclusive within a cell. Returns the function unchanged (marked).
    """

    def mark(func: Callable[..., Any]) -> Callable[..., Any]:
        setattr(func, MARK, {"name": name or func.__name__, "description": description, "parallel": parallel})
        return func

    return mark(fn) if fn is not None else mark


def _docstring_parts(doc: str | None) -> tuple[str, dict[str, str]]:
    text = inspect.cleandoc(doc or "")
    summary = text.split("\n\n", 1)[0].strip() if text else ""
    params: dict[str, str] = {}
    match = re.search(r"^(Args|Arguments|Parameters):\s*$(.*?)(?=^\S|\Z)", text, re.M | re.S)
    if match:
        current = None
        for line in match.group(2).splitlines():
            item = re.match(r"^\s+(\*{0,2}\w+)\s*(\([^)]*\))?\s*:\s*(.*)$", line)
            if item and (current is None or len(line) - len(line.lstrip()) <= 8):
                current = item.group(1).lstrip("*")
                params[current] = item.group(3).strip()
            elif current and line.strip():
                params[current] = (params[current] + " " + line.strip()).strip()
    return summary, params


def python_tool(func: Callable[..., Any], origin: str = "python") -> Tool:
    """Build a :class:`Tool` from a (marked or plain) function. Raises ``TypeError`` for
    signatures that cannot become a JSON object (``*args``/``**kwargs``)."""
    options = getattr(func, MARK, {}) or {}
    summary, param_docs = _docstring_parts(func.__doc__)
    signature = inspect.signature(func)
    hints = {}
    try:
        hints = __import__("typing").get_type_hints(func)
    except Exception:  # noqa: BLE001 - unresolvable hints fall back to Any
        pass
    fields: dict[str, Any] = {}
    for param in signature.parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f"{func.__qualname__} takes *args or **kwargs, which a JSON object cannot fill")
        annotation = hints.get(param.name, Any)
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (annotation, pydantic.Field(default, description=param_docs.get(param.name)))
    model = pydantic.create_model(f"{func.__name__}_args", **fields)
    schema = model.model_json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        if isinstance(prop, dict):
            prop.pop("title", None)
    is_async = inspect.iscoroutinefunction(func)
    tool_name = options.get("name") or func.__name__

    async def handler(args: Any, ctx: ToolContext) -> Any:
        try:
            validated = model.model_validate(args or {})
        except pydantic.ValidationError as exc:
            raise ToolCallError(f"tool `{tool_name}` received invalid arguments: {exc}") from None
        kwargs = {name: getattr(validated, name) for name in fields}
        with route_output(ctx.report_output):
            if is_async:
                result = await ASYNC_PYTHON_TOOLS.run(tool_name, func, **kwargs)
            else:
                result = await PYTHON_TOOLS.run(tool_name, functools.partial(func, **kwargs), group=ctx.cell_id)
        try:
            return to_jsonable_python(result)
        except Exception as exc:  # noqa: BLE001 - PydanticSerializationError, a circular value, ...
            raise ToolCallError(
                f"tool `{tool_name}` returned a value that is not JSON: {exception_text(exc)}."
            ) from None

    return Tool(
        name=tool_name,
        description=options.get("description") or summary,
        handler=handler,
        input_schema=schema,
        supports_parallel=bool(options.get("parallel", True)),
        origin=origin,
    )


def load_python_tools(modules: list[str]) -> tuple[list[Tool], list[str]]:
    """Import each module and collect its marked functions. Returns ``(tools, errors)``; an
    import failure or a bad signature becomes one error sentence, the rest still loads."""
    tools: list[Tool] = []
    errors: list[str] = []
    for module_name in modules:
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:  # noqa: BLE001 - reported, not raised
            errors.append(f"python_tools.modules: {module_name}: cannot be imported ({type(exc).__name__}: {exc}).")
            continue
        for attr in sorted(vars(module)):
            func = getattr(module, attr)
            if callable(func) and getattr(func, MARK, None) is not None:
                try:
                    tools.append(python_tool(func, origin=f"python:{module_name}"))
                except Exception as exc:  # noqa: BLE001
                    errors.append(f"python_tools.modules: {module_name}.{attr}: cannot be a tool ({exc}).")
    return tools, errors
