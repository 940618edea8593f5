package dev.wirespeed.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The tests that measure allocation run in a JVM without Jazzer's agent: the build runs the tests
 * tagged {@code jazzer} (every {@code @FuzzTest}) in a surefire execution of their own and this one
 * without them. {@code FrameReaderFuzzTest} checks that the same probe sees the agent where it is.
 */
class UninstrumentedJvmTest {

    @Test
    void noAgentInstrumentsTheClassesOfThisJvm() {
        assertEquals(Optional.empty(), JvmAgents.instrumenting(),
                "core's main test execution must not run a fuzz test (see core/pom.xml)");
    }
}
