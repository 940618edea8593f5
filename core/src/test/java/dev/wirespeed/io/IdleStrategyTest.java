package dev.wirespeed.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.frame.FrameReader;
import dev.wirespeed.frame.FrameWriter;
import dev.wirespeed.testing.Await;
import dev.wirespeed.testing.Frames;
import dev.wirespeed.testing.ScriptedChannel;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The idle strategies' contract: the counts the readers and writers pass, the backoff's schedule, and
 * that every strategy reads and writes a stingy non-blocking channel to the last byte.
 */
class IdleStrategyTest {
    /** Records the counts it is given. */
    private static final class Recording implements IdleStrategy {
        final List<Integer> counts = new ArrayList<>();

        @Override
        public void idle(int emptyCalls) {
            counts.add(emptyCalls);
        }
    }

    static Stream<IdleStrategy> strategies() {
        return Stream.of(IdleStrategy.defaultStrategy(), IdleStrategy.busySpin(), IdleStrategy.yielding(),
                IdleStrategy.spinning(3), IdleStrategy.backoff(2, 2, 1_000, 50_000));
    }

    @Test
    void aReaderCountsConsecutiveEmptyReadsAndStartsAgainAfterBytes() throws IOException {
        // Calls 0-2 move nothing, 3 moves 5 bytes, 4-5 nothing, then everything.
        byte[] data = new byte[12];
        ScriptedChannel channel = ScriptedChannel.scripted(data, call -> call < 3 || call == 4 || call == 5 ? 0
                : call == 3 ? 5 : Integer.MAX_VALUE, "empty-3-then-5-then-empty-2");
        Recording idle = new Recording();
        ChannelReader reader = new ChannelReader(channel, 64, 64, idle);
        reader.require(12);
        assertEquals(List.of(1, 2, 3, 1, 2), idle.counts);
    }

    @Test
    void aWriterCountsConsecutiveEmptyWritesAndStartsAgainAfterBytes() throws IOException {
        ScriptedChannel sink = ScriptedChannel.sink(call -> call < 2 || call == 3 ? 0 : call == 2 ? 4 : Integer.MAX_VALUE,
                "empty-2-then-4-then-empty-1");
        Recording idle = new Recording();
        ChannelWriter writer = new ChannelWriter(sink, 64, idle);
        writer.writeLong(1L);
        writer.writeInt(2);
        writer.flush();
        assertEquals(List.of(1, 2, 1), idle.counts);
        assertEquals(12, sink.written().length);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void everyStrategyMovesEveryFrameThroughAChannelThatIsOftenEmpty(IdleStrategy idle) throws IOException {
        byte[] stream = new Frames().sequence(0, 200, 37).toByteArray();
        ScriptedChannel sink = ScriptedChannel.sink(call -> call % 3 == 0 ? 0 : 50, "empty-every-third");
        try (FrameWriter writer = FrameWriter.builder(sink).bufferCapacity(128).idleStrategy(idle).build()) {
            FrameReader source = FrameReader.builder(ScriptedChannel.scripted(stream, call -> call % 4 < 2 ? 0 : 64,
                    "empty-two-in-four")).bufferCapacity(64).idleStrategy(idle).build();
            while (source.readFrame(writer::writeFrame)) {
                // each frame copied to the writer
            }
        }
        assertArrayEquals(stream, sink.written());
    }

    @Test
    void backoffSpinsThenYieldsThenParksLongerUpToItsMost() {
        Backoff backoff = (Backoff) IdleStrategy.backoff(2, 3, 1_000, 8_000);
        // Calls 1-2 spin, 3-5 yield, 6 onwards park: 1, 2, 4, 8 us, then 8 us for ever.
        assertEquals(1_000, backoff.parkNanos(6));
        assertEquals(2_000, backoff.parkNanos(7));
        assertEquals(4_000, backoff.parkNanos(8));
        assertEquals(8_000, backoff.parkNanos(9));
        assertEquals(8_000, backoff.parkNanos(10));
        assertEquals(8_000, backoff.parkNanos(Integer.MAX_VALUE));
        Backoff odd = (Backoff) IdleStrategy.backoff(0, 0, 3, 10);
        assertEquals(List.of(3L, 6L, 10L, 10L), List.of(odd.parkNanos(1), odd.parkNanos(2), odd.parkNanos(3),
                odd.parkNanos(4)));
        Backoff huge = (Backoff) IdleStrategy.backoff(0, 0, Long.MAX_VALUE / 2, Long.MAX_VALUE);
        assertEquals(Long.MAX_VALUE, huge.parkNanos(3));
    }

    @Test
    void backoffStopsDoublingBeforeTheParkTimeOverflowsAtEitherEndOfTheRange() {
        Backoff equal = (Backoff) IdleStrategy.backoff(0, 0, 5, 5);
        assertEquals(List.of(5L, 5L, 5L), List.of(equal.parkNanos(1), equal.parkNanos(2), equal.parkNanos(100)));
        Backoff one = (Backoff) IdleStrategy.backoff(0, 0, 1, 1);
        assertEquals(1, one.parkNanos(1));
        Backoff widest = (Backoff) IdleStrategy.backoff(0, 0, 1, Long.MAX_VALUE);
        assertEquals(1L << 61, widest.parkNanos(62));
        assertEquals(Long.MAX_VALUE, widest.parkNanos(63), "62 doublings at most");
        Backoff five = (Backoff) IdleStrategy.backoff(0, 0, 5, Long.MAX_VALUE);
        assertEquals(5L << 60, five.parkNanos(61));
        assertEquals(Long.MAX_VALUE, five.parkNanos(62), "5 << 61 overflows: the most instead");
        Backoff huge = (Backoff) IdleStrategy.backoff(0, 0, Long.MAX_VALUE / 2, Long.MAX_VALUE);
        assertEquals(List.of(Long.MAX_VALUE / 2, Long.MAX_VALUE - 1, Long.MAX_VALUE),
                List.of(huge.parkNanos(1), huge.parkNanos(2), huge.parkNanos(3)));
    }

    @Test
    void backoffSpinsAndYieldsWithoutParkingThenParks() throws Exception {
        // An odd park time: a schedule that shifted it the wrong way would still park for long.
        long minute = TimeUnit.MINUTES.toNanos(1) + 1;
        IdleStrategy backoff = IdleStrategy.backoff(1, 3, minute, minute);
        AtomicInteger calls = new AtomicInteger();
        AtomicBoolean woken = new AtomicBoolean();
        Thread idler = Thread.ofPlatform().start(() -> {
            while (!woken.get()) {
                backoff.idle(calls.get() + 1); // spins once, yields three times, then parks for a minute or until woken
                calls.incrementAndGet();
            }
        });
        Await.awaitTrue(() -> calls.get() == 4 && idler.getState() == Thread.State.TIMED_WAITING,
                () -> "the fifth empty call parks: calls returned=" + calls.get() + " state=" + idler.getState());
        woken.set(true);
        LockSupport.unpark(idler);
        assertTrue(idler.join(Duration.ofSeconds(20)), "woken from its park: state=" + idler.getState());
    }

    @Test
    void outOfRangeSettingsAreRefusedWithEveryValueNamed() {
        assertEquals("spinsPerYield=0 min=1",
                assertThrows(IllegalArgumentException.class, () -> IdleStrategy.spinning(0)).getMessage());
        assertEquals("spins=-1 and yields=0 must be >= 0, minParkNanos=1 >= 1 and maxParkNanos=2 >= minParkNanos",
                assertThrows(IllegalArgumentException.class, () -> IdleStrategy.backoff(-1, 0, 1, 2)).getMessage());
        assertEquals("spins=0 and yields=0 must be >= 0, minParkNanos=5 >= 1 and maxParkNanos=4 >= minParkNanos",
                assertThrows(IllegalArgumentException.class, () -> IdleStrategy.backoff(0, 0, 5, 4)).getMessage());
        assertEquals("spins=0 and yields=-1 must be >= 0, minParkNanos=1 >= 1 and maxParkNanos=2 >= minParkNanos",
                assertThrows(IllegalArgumentException.class, () -> IdleStrategy.backoff(0, -1, 1, 2)).getMessage());
        assertEquals("spins=0 and yields=0 must be >= 0, minParkNanos=0 >= 1 and maxParkNanos=2 >= minParkNanos",
                assertThrows(IllegalArgumentException.class, () -> IdleStrategy.backoff(0, 0, 0, 2)).getMessage());
        assertThrows(NullPointerException.class, () -> FrameReader.builder(ScriptedChannel.whole(new byte[0]))
                .idleStrategy(null));
    }

    @Test
    void theDefaultIsSpinningEightAndNamesSayWhatEachDoes() {
        assertSame(IdleStrategy.defaultStrategy(), IdleStrategy.spinning(8));
        assertEquals("spinning(8)", IdleStrategy.defaultStrategy().toString());
        assertEquals("yielding", IdleStrategy.yielding().toString());
        assertEquals("busySpin", IdleStrategy.busySpin().toString());
        assertEquals("backoff(spins=100, yields=10, park=1000..1000000ns)",
                IdleStrategy.backoff(100, 10, 1_000, 1_000_000).toString());
    }
}
