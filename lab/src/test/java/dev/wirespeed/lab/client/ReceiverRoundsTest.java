package dev.wirespeed.lab.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.ChildReports;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongUnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * How a {@link Receiver} cuts a run into rounds, on a clock the test moves: one microsecond per frame,
 * so that a round's length in frames says when it ended. The JIT's compilation time is a function
 * of that clock.
 */
class ReceiverRoundsTest {
    private static final long MS = 1_000_000;
    private static final byte[] BODY = new byte[100];

    /** Feeds frames, the clock one microsecond further before each, until the receiver is done. */
    private static List<ChildReport.Round> run(Rounds rounds, LongUnaryOperator compileMillisAt) throws IOException {
        long[] now = {0};
        StringWriter out = new StringWriter();
        Receiver receiver = new Receiver(null, rounds, true, new PrintWriter(out), () -> now[0],
                () -> compileMillisAt.applyAsLong(now[0]));
        for (int i = 0; i < 10_000_000 && !receiver.done(); i++) {
            now[0] += 1_000;
            receiver.onFrame(i, BODY, 0, BODY.length);
        }
        assertTrue(receiver.done(), "the receiver never finished its rounds");
        List<ChildReport.Round> printed = new ArrayList<>();
        for (String line : out.toString().split("\n")) {
            printed.add((ChildReport.Round) ChildReports.read(line));
        }
        return printed;
    }

    /** {@return the frames in a round that ends at the first look at the clock at or after {@code micros}} */
    private static long framesUntil(long micros) {
        long checks = (micros + Receiver.CHECK_EVERY - 1) / Receiver.CHECK_EVERY;
        return checks * Receiver.CHECK_EVERY;
    }

    @Test
    void framesToNextCheckEndsABatchWhereTheRoundOrTheLookAtTheClockFalls() throws IOException {
        long[] now = {0};
        Receiver counted = new Receiver(null, new Rounds.ByFrames(10, 2), true, new PrintWriter(new StringWriter()),
                () -> now[0], () -> 0);
        assertEquals(10, counted.framesToNextCheck());
        for (int i = 0; i < 3; i++) {
            counted.onFrame(i, BODY, 0, BODY.length);
        }
        assertEquals(7, counted.framesToNextCheck());
        for (int i = 0; i < 7; i++) {
            counted.onFrame(i, BODY, 0, BODY.length);
        }
        assertEquals(10, counted.framesToNextCheck(), "a new round of 10");
        Receiver timed = new Receiver(null, new Rounds.ByTime(5 * MS, 5 * MS, false, 1), true,
                new PrintWriter(new StringWriter()), () -> now[0], () -> 0);
        timed.onFrame(0, BODY, 0, BODY.length);
        assertEquals(Receiver.CHECK_EVERY - 1, timed.framesToNextCheck());
    }

    @Test
    void timedRoundsLastTheirLengthAndAFixedWarmUpItsOwn() throws IOException {
        List<ChildReport.Round> rounds = run(new Rounds.ByTime(5 * MS, 12 * MS, false, 4), at -> 0);
        assertEquals(4, rounds.size());
        assertEquals(framesUntil(12_000), rounds.get(0).messages());
        for (ChildReport.Round round : rounds.subList(1, 4)) {
            assertEquals(framesUntil(5_000), round.messages(), round.toString());
            assertEquals(5, round.ms());
        }
    }

    @Test
    void aSettlingWarmUpGoesOnUntilTheJitHasBeenQuietForARound() throws IOException {
        // Compiling until 30 ms, quiet after: the warm-up ends at the first look, one round (5 ms) apart from
        // the one before, that sees the same total; after 35 ms and before 30 + 2 rounds + a look.
        List<ChildReport.Round> rounds = run(new Rounds.ByTime(5 * MS, 10 * MS, true, 2), at -> Math.min(at, 30 * MS) / MS);
        long warmUp = rounds.get(0).messages();
        assertTrue(warmUp >= 35_000 && warmUp <= 40_000 + 2L * Receiver.CHECK_EVERY, "warm-up frames " + warmUp);
        assertEquals(framesUntil(5_000), rounds.get(1).messages());
    }

    @Test
    void aQuietJitEndsTheWarmUpOneRoundAfterItsLeastLength() throws IOException {
        List<ChildReport.Round> rounds = run(new Rounds.ByTime(5 * MS, 10 * MS, true, 2), at -> 7);
        long warmUp = rounds.get(0).messages();
        assertTrue(warmUp >= 15_000 && warmUp <= 15_000 + 2L * Receiver.CHECK_EVERY, "warm-up frames " + warmUp);
    }

    @Test
    void aJitThatNeverSettlesIsCutOffAtTheCap() throws IOException {
        List<ChildReport.Round> rounds = run(new Rounds.ByTime(5 * MS, 10 * MS, true, 2), at -> at / 1000);
        assertEquals(framesUntil(10_000 * Rounds.ByTime.MAX_WARMUP_FACTOR), rounds.get(0).messages());
    }

    @Test
    void countedRoundsIgnoreTheClock() throws IOException {
        List<ChildReport.Round> rounds = run(new Rounds.ByFrames(1_000, 3), at -> at);
        assertEquals(3, rounds.size());
        for (ChildReport.Round round : rounds) {
            assertEquals(1_000, round.messages());
            assertEquals(1, round.ms());
        }
    }
}
