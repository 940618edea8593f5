package dev.wirespeed.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The builder's range checks: each refusal names the value and its limits. */
class FrameServerBuilderTest {
    private final FrameServer.Builder builder = FrameServer.builder((connection, type, body) -> { });

    @Test
    void lingerTimeoutTakesZeroToAYear() {
        assertSame(builder, builder.lingerTimeout(Duration.ZERO));
        assertSame(builder, builder.lingerTimeout(Duration.ofDays(365)));
        assertEquals("lingerTimeout=PT-0.001S min=PT0S max=PT8760H",
                assertThrows(IllegalArgumentException.class, () -> builder.lingerTimeout(Duration.ofMillis(-1)))
                        .getMessage());
        assertEquals("lingerTimeout=PT8760H0.001S min=PT0S max=PT8760H",
                assertThrows(IllegalArgumentException.class,
                        () -> builder.lingerTimeout(Duration.ofDays(365).plusMillis(1))).getMessage());
    }

    @Test
    void idleTimeoutTakesAMillisecondToAYearOrZeroForNone() {
        assertSame(builder, builder.idleTimeout(Duration.ofMillis(1)));
        assertSame(builder, builder.idleTimeout(Duration.ofDays(365)));
        assertSame(builder, builder.idleTimeout(Duration.ZERO));
        assertEquals("idleTimeout=PT0.000001S min=PT0.001S max=PT8760H, or PT0S for none",
                assertThrows(IllegalArgumentException.class, () -> builder.idleTimeout(Duration.ofNanos(1_000)))
                        .getMessage());
        assertEquals("idleTimeout=PT-0.001S min=PT0.001S max=PT8760H, or PT0S for none",
                assertThrows(IllegalArgumentException.class, () -> builder.idleTimeout(Duration.ofMillis(-1)))
                        .getMessage());
    }

    @Test
    void frameTimeoutTakesAMillisecondToAYearOrZeroForNone() {
        assertSame(builder, builder.frameTimeout(Duration.ofMillis(1)));
        assertSame(builder, builder.frameTimeout(Duration.ZERO));
        assertEquals("frameTimeout=PT8760H0.001S min=PT0.001S max=PT8760H, or PT0S for none",
                assertThrows(IllegalArgumentException.class,
                        () -> builder.frameTimeout(Duration.ofDays(365).plusMillis(1))).getMessage());
    }

    @Test
    void maxHandshakesTakesOneOrMore() {
        assertSame(builder, builder.maxHandshakes(1));
        assertSame(builder, builder.maxHandshakes(Integer.MAX_VALUE));
        assertEquals("maxHandshakes=0 min=1",
                assertThrows(IllegalArgumentException.class, () -> builder.maxHandshakes(0)).getMessage());
    }

    @Test
    void outputLimitTakesOneOrMore() {
        assertSame(builder, builder.outputLimit(1));
        assertSame(builder, builder.outputLimit(Long.MAX_VALUE));
        assertEquals("outputLimit=0 min=1",
                assertThrows(IllegalArgumentException.class, () -> builder.outputLimit(0)).getMessage());
    }

    @Test
    void maxConnectionsTakesOneOrMore() {
        assertSame(builder, builder.maxConnections(1));
        assertSame(builder, builder.maxConnections(Integer.MAX_VALUE));
        assertEquals("maxConnections=0 min=1",
                assertThrows(IllegalArgumentException.class, () -> builder.maxConnections(0)).getMessage());
    }

    @Test
    void aHandlerAndTlsSettingsAreRequired() {
        assertEquals("handler", assertThrows(NullPointerException.class, () -> FrameServer.builder(null)).getMessage());
        assertEquals("tls", assertThrows(NullPointerException.class, () -> builder.tls(null)).getMessage());
        assertEquals("idleTimeout", assertThrows(NullPointerException.class, () -> builder.idleTimeout(null)).getMessage());
        assertEquals("lingerTimeout",
                assertThrows(NullPointerException.class, () -> builder.lingerTimeout(null)).getMessage());
    }

    @Test
    void unusedMemoryTimeoutTakesAMillisecondToAYearOrZeroToKeepMemory() {
        assertSame(builder, builder.unusedMemoryTimeout(Duration.ofMillis(1)));
        assertSame(builder, builder.unusedMemoryTimeout(Duration.ZERO));
        assertSame(builder, builder.unusedMemoryTimeout(Duration.ofDays(365)));
        assertEquals("unusedMemoryTimeout=PT0.0009S min=PT0.001S max=PT8760H, or PT0S to keep pooled memory",
                assertThrows(IllegalArgumentException.class,
                        () -> builder.unusedMemoryTimeout(Duration.ofNanos(900_000))).getMessage());
        assertEquals("unusedMemoryTimeout=PT8760H0.001S min=PT0.001S max=PT8760H, or PT0S to keep pooled memory",
                assertThrows(IllegalArgumentException.class,
                        () -> builder.unusedMemoryTimeout(Duration.ofDays(365).plusMillis(1))).getMessage());
        assertThrows(NullPointerException.class, () -> builder.unusedMemoryTimeout(null));
    }

    @Test
    void inputBudgetTakesAPageOrMoreAndAtLeastAChunkAtTheStart() {
        assertSame(builder, builder.inputBudget(4096));
        assertEquals("inputBudget=4095 min=4096",
                assertThrows(IllegalArgumentException.class, () -> builder.inputBudget(4095)).getMessage());
        LoopGroup.Builder group = LoopGroup.builder().chunkSize(64 * 1024).inputBudget(32 * 1024);
        assertEquals("inputBudget=32768 is less than chunkSize=65536: a loop could not keep one chunk of a partial "
                + "frame", assertThrows(IllegalStateException.class, group::start).getMessage());
    }
}
