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
    void idleTimeoutTakesAMillisecondToAYear() {
        assertSame(builder, builder.idleTimeout(Duration.ofMillis(1)));
        assertEquals("idleTimeout=PT0S min=PT0.001S max=PT8760H",
                assertThrows(IllegalArgumentException.class, () -> builder.idleTimeout(Duration.ZERO)).getMessage());
    }
}
