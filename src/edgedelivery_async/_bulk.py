"""Fan one facade call out over many keys, concurrently, with results streaming back.

`fan_out(call, keys)` is the one mechanism under every bulk read: keys are read
lazily (never more than `concurrency` ahead of what has been yielded), at most
`concurrency` calls are in flight, every key yields exactly one `BulkResult`, and
leaving the loop early cancels what is in flight. Retries and the pace of requests
are the client's (see `_rate_control`): every bulk run of a client shares its limit.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterable, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ._exceptions import ConfigurationError, EdgeDeliveryError, InvalidRequestError
from ._rate_control import SLOWEST_RATE
from ._schema import Problem

#: The most calls a bulk run makes at once, and the most connections a pool holds
#: (`max_connections`, one connection a call); a higher `concurrency` means this. The
#: source is read that far ahead of what has been yielded, so this also bounds the
#: memory a run holds.
MOST_CONCURRENCY = 65_536

K = TypeVar("K")
V = TypeVar("V")


@dataclass(frozen=True, slots=True)
class BulkResult(Generic[K, V]):
    """The outcome for one key: `value` when `ok`, else `error` (an EdgeDeliveryError)."""

    key: K
    value: V | None = None
    error: Exception | None = None

    @property
    def ok(self) -> bool:
        """True when the call for this key succeeded."""
        return self.error is None


@dataclass(slots=True)
class BulkProgress:
    """Live counters of a run, for progress bars and metrics; read them at any time."""

    started: int = 0
    succeeded: int = 0
    failed: int = 0
    started_at: float = field(default_factory=time.monotonic)
    unfinished: list[Any] = field(default_factory=list)
    """The keys of a run cancelled or left early that got no result: calls it stopped,
    and results that had finished but were never yielded (to run again)."""

    @property
    def done(self) -> int:
        """Keys with a result."""
        return self.succeeded + self.failed

    @property
    def in_flight(self) -> int:
        """Keys read from the source whose result has not been yielded yet."""
        return self.started - self.done - len(self.unfinished)

    @property
    def elapsed(self) -> float:
        """Seconds since the run started."""
        return time.monotonic() - self.started_at

    @property
    def rate(self) -> float:
        """Results per second so far."""
        elapsed = self.elapsed
        return self.done / elapsed if elapsed > 0 else 0.0


@dataclass(slots=True)
class BulkOutcome(Generic[K, V]):
    """A whole run collected: values and errors by key."""

    values: dict[K, V] = field(default_factory=dict)
    errors: dict[K, Exception] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when no key failed."""
        return not self.errors


class RateLimiter:
    """Spaces calls `1 / rate` seconds apart; each caller reserves its slot before waiting."""

    def __init__(
        self,
        rate: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        if isinstance(rate, bool) or not isinstance(rate, int | float) or not rate >= SLOWEST_RATE:
            raise ConfigurationError(
                f"rate_limit must be a number of requests per second, at least {SLOWEST_RATE}"
            )
        try:
            self.interval = 1.0 / rate
        except OverflowError:  # an int beyond any float: as good as no limit
            self.interval = 0.0
        self._clock = clock
        self._sleep = sleep
        self._next = 0.0

    async def acquire(self) -> None:
        """Wait for this caller's slot."""
        now = self._clock()
        slot = max(now, self._next)
        self._next = slot + self.interval
        if slot > now:
            await self._sleep(slot - now)


async def fan_out(
    call: Callable[[K], Awaitable[V]],
    keys: Iterable[K] | AsyncIterable[K],
    *,
    concurrency: int = 100,
    rate_limit: float | None = None,
    progress: BulkProgress | None = None,
    finishing: Callable[[int], None] | None = None,
) -> AsyncGenerator[BulkResult[K, V], None]:
    """Call `call(key)` for every key, at most `concurrency` at once; yield results as they finish.

    `keys` may be any iterable or async iterable and is read lazily; an async source is
    read beside the calls, so a slow source never holds back a finished result.
    `rate_limit` caps calls per second. Pass a `BulkProgress` to watch the run.
    `finishing`, once the last key is read, is called with the number of calls left
    each time one ends (bulk methods pass their client's `rate_controller.finishing`,
    so that no probe's 429 delays the end of the run); if it raises, it is not called
    again, and the run raises that exception once every key has its result. Any
    exception a call raises becomes that key's `error`. When the keys' iterator itself
    raises, no further key is read, the keys already read still yield their results,
    and then the run raises that exception. Cancelling the run stops the calls in
    flight, yields every result that had already finished, then raises the cancellation.
    """
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ConfigurationError("concurrency must be a positive integer")
    concurrency = min(concurrency, MOST_CONCURRENCY)  # (read 10**100 ahead, ids filled memory)
    if progress is not None and not isinstance(progress, BulkProgress):
        raise ConfigurationError("progress must be a BulkProgress (or None)")
    if not callable(call):
        raise ConfigurationError("call must be a coroutine function of one key")
    if finishing is not None and not callable(finishing):
        raise ConfigurationError("finishing must be a function of one int (or None)")
    limiter = RateLimiter(rate_limit) if rate_limit is not None else None
    counters = progress if progress is not None else BulkProgress()
    loop = asyncio.get_running_loop()
    finished: deque[BulkResult[K, V]] = deque()  # results not yet yielded, oldest first
    waiter: asyncio.Future[None] | None = None  # set while the loop below waits
    space: asyncio.Future[None] | None = None  # set while the feeder waits for a place
    tasks: dict[asyncio.Task[None], K] = {}  # the calls not yet ended, with their keys
    read_key, await_key = _key_readers(keys)
    exhausted = False
    source_error: BaseException | None = None  # raised once the keys read so far have results
    finishing_error: Exception | None = None  # ... or this, the first `finishing` raised
    in_flight = 0  # keys read whose result has not been yielded
    calling = 0  # ... and of those, calls not yet ended
    closing = False  # a cancellation was thrown in at a `yield`

    def wake() -> None:
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def run(key: K) -> None:
        nonlocal calling, finishing_error
        try:
            if limiter is not None:
                await limiter.acquire()
            result: BulkResult[K, V] = BulkResult(key, await call(key))
        except asyncio.CancelledError as error:
            if _cancelled():  # the run stops its calls
                raise
            # The call raised it of its own (it awaited something cancelled): without a
            # result, the run would wait for this key for ever.
            failed = EdgeDeliveryError("the call raised CancelledError; nobody cancelled it")
            failed.__cause__ = error
            result = BulkResult(key, error=failed)
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as error:  # every key gets a result, whatever the call raised
            result = BulkResult(key, error=error)
        except BaseException as error:  # a Rust library's panic: without a result, it hung
            failed = EdgeDeliveryError(f"the call failed: {type(error).__name__}: {error}")
            failed.__cause__ = error
            result = BulkResult(key, error=failed)
        calling -= 1
        finished.append(result)
        del tasks[asyncio.current_task()]  # type: ignore[arg-type]
        wake()
        if exhausted and finishing is not None and finishing_error is None:
            try:
                finishing(calling)
            except Exception as error:  # the caller's hook: raised once every key has its result
                finishing_error = error

    def start(key: K) -> None:
        nonlocal in_flight, calling
        counters.started += 1  # first: a progress object that raises leaves no count behind
        in_flight += 1
        calling += 1
        task = loop.create_task(run(key))
        tasks[task] = key  # (until `run` has its result: a task stopped first stays)

    async def feed(next_key: Callable[[], Awaitable[K]]) -> None:
        """Read an async source beside the calls, never more than `concurrency` ahead."""
        nonlocal exhausted, source_error, space
        try:
            while True:
                while in_flight >= concurrency:
                    space = loop.create_future()
                    try:
                        await space
                    finally:
                        space = None
                start(await next_key())
        except StopAsyncIteration:
            pass
        except asyncio.CancelledError as error:
            if _cancelled():  # the run stops the feeder
                raise
            source_error = error  # the source raised it of its own: the run raises it too
        except Exception as error:  # the keys' own iterator failed
            source_error = error
        finally:
            exhausted = True
            wake()

    feeder = loop.create_task(feed(await_key)) if await_key is not None else None
    try:
        while True:
            while read_key is not None and not exhausted and in_flight < concurrency:
                try:
                    key = read_key()
                except StopIteration:
                    exhausted = True
                    break
                except asyncio.CancelledError as error:
                    if _cancelled():
                        raise
                    exhausted, source_error = True, error  # raised by the keys' iterator
                    break
                except Exception as error:  # the keys' own iterator failed
                    exhausted, source_error = True, error
                    break
                start(key)
            if not finished and exhausted and in_flight == 0:
                if source_error is not None:
                    raise source_error
                if finishing_error is not None:
                    raise finishing_error
                return
            while not finished and not (exhausted and in_flight == 0):
                waiter = loop.create_future()
                try:
                    await waiter
                finally:
                    waiter = None
            if not finished:
                continue
            result = finished.popleft()
            in_flight -= 1
            if space is not None and not space.done():
                space.set_result(None)
            if result.error is None:
                counters.succeeded += 1
            else:
                counters.failed += 1
            try:
                yield result
            except asyncio.CancelledError:  # thrown in here: being closed (`aclose` cancelled
                closing = True  # at shutdown), where yielding again would be an error
                raise
    except asyncio.CancelledError:
        # Stop what is in flight, then hand over every result that had finished (the keys
        # of the calls stopped go to `unfinished`, below: none is lost).
        await _stop(feeder, tasks)
        while finished and not closing:
            result = finished.popleft()
            if result.error is None:
                counters.succeeded += 1
            else:
                counters.failed += 1
            yield result
        raise
    finally:
        await _stop(feeder, tasks)
        # (cancelled, left early, or closed) the results never handed over, and the
        # calls stopped before their results
        counters.unfinished.extend(result.key for result in finished)
        counters.unfinished.extend(tasks.values())


def _cancelled() -> bool:
    """Whether the current task is being cancelled (a CancelledError is then the
    cancellation itself, not one that code inside raised of its own)."""
    task = asyncio.current_task()
    return task is None or task.cancelling() > 0


async def _stop(feeder: asyncio.Task[None] | None, tasks: Iterable[asyncio.Task[None]]) -> None:
    """Cancel the feeder and the calls in flight, and wait until they have ended."""
    pending = [task for task in (feeder, *tasks) if task is not None and not task.done()]
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)


async def collect(
    results: AsyncIterable[BulkResult[K, V]], *, outcome: BulkOutcome[K, V] | None = None
) -> BulkOutcome[K, V]:
    """Run a bulk iterator to the end and gather its values and errors by key.

    Pass `outcome` (a `BulkOutcome()` of yours) to keep what a run had if it is
    interrupted: it is filled as results arrive, so when the key source raises, the run
    is cancelled or times out, or `collect` raises, it holds every result gathered until
    then, and the run's `progress.unfinished` lists the keys started that got none.
    `collect` closes the iterator however it ends, which stops the calls in flight.
    """
    if outcome is None:
        outcome = BulkOutcome()
    elif not isinstance(outcome, BulkOutcome):
        raise ConfigurationError("collect: outcome must be a BulkOutcome (or None)")
    try:
        iterator = aiter(results)
    except TypeError:
        shown = type(results).__name__
        raise ConfigurationError(
            f"collect: results must be a bulk run (an async iterable of BulkResult), not {shown}"
        ) from None
    try:
        async for result in iterator:
            try:  # a key given twice keeps its last result, in one of the two only
                if result.error is None:
                    outcome.values[result.key] = result.value  # type: ignore[assignment]
                    outcome.errors.pop(result.key, None)
                else:
                    outcome.errors[result.key] = result.error
                    outcome.values.pop(result.key, None)
            except TypeError:  # an unhashable key (a list, say) cannot be a dict's key
                shown = type(result.key).__name__
                raise ConfigurationError(
                    f"collect: keys must be hashable to be gathered by key, not {shown}"
                    " (iterate the results instead)"
                ) from None
    finally:  # (a run that raised or ended is closed already: nothing happens then)
        close = getattr(iterator, "aclose", None)
        if close is not None:
            await close()
    return outcome


def _key_readers(
    keys: Iterable[K] | AsyncIterable[K],
) -> tuple[Callable[[], K] | None, Callable[[], Awaitable[K]] | None]:
    """How to read the next key: directly from a sync iterator (StopIteration at its end),
    with no coroutine per key, or awaited from an async one (StopAsyncIteration)."""
    if isinstance(keys, str | bytes | bytearray | memoryview):
        shown = f"not a {type(keys).__name__} (it would be read one character at a time)"
        problem = Problem("keys", f"must be a collection of keys, {shown}")
        raise InvalidRequestError("fan_out", [problem])
    try:
        if isinstance(keys, AsyncIterable):
            return None, aiter(keys).__anext__
        return iter(keys).__next__, None
    except TypeError:
        problem = Problem(
            "keys", f"must be an iterable or async iterable, not {type(keys).__name__}"
        )
        raise InvalidRequestError("fan_out", [problem]) from None
