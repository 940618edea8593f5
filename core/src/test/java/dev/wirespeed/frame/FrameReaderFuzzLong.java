package dev.wirespeed.frame;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;

/**
 * The long fuzzing run of {@link FrameReaderFuzzTest}'s property, ten minutes; its name keeps it out
 * of the normal build. Run: {@code ./mvnw -pl core -am test -Dtest=FrameReaderFuzzLong
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class FrameReaderFuzzLong {
    @FuzzTest(maxDuration = "10m")
    void anyBytesGiveFramesThenACleanEndOrOneProtocolError(byte[] input) throws IOException {
        FrameReaderFuzzTest.check(input);
    }
}
