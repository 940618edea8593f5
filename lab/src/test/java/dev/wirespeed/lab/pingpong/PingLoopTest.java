package dev.wirespeed.lab.pingpong;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The branch-free choice of when {@link PingLoop} starts measuring: past the warm-up's count and its end, both. */
class PingLoopTest {
    @ParameterizedTest
    @CsvSource({
        // warmup, i, warmupEnd, end, measuring
        "10, 9, 100, 200, 0", // the count not reached, the time passed
        "10, 10, 100, 99, 0", // the count reached, the time not
        "10, 10, 100, 100, 1", // both, exactly at their ends
        "10, 11, 100, 150, 1",
        "0, 0, 100, 100, 1", // no warm-up count: time alone decides
        "0, 0, 100, 50, 0",
        "5, 4, 0, 0, 0",
        // nanoTime may be negative or wrap: only differences count
        "1, 1, -9223372036854775800, -9223372036854775790, 1",
        "1, 1, 9223372036854775800, -9223372036854775800, 1", // end wrapped past warmupEnd
        "1, 1, -9223372036854775800, 9223372036854775800, 0", // warmupEnd wrapped, end not yet there
    })
    void measuresOnceBothTheCountAndTheTimeOfTheWarmUpHavePassed(long warmup, long i, long warmupEnd, long end,
            int measuring) {
        assertEquals(measuring, PingLoop.measuring(warmup, i, warmupEnd, end));
    }
}
