package dev.wirespeed.lab.experiments.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.wirespeed.lab.client.Strategies;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Placement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every stream finding of each link on synthetic figures, once where all of them hold and once where
 * all of them fail: the verdicts, titles and figures as a reader of the report sees them.
 */
class StreamVerdictsTest {
    private static final Placement APART = new Placement(Placement.Kind.DIFFERENT_CORES, 0, 1);
    private static final Placement TOGETHER = new Placement(Placement.Kind.SAME_CORE, 1, 1);

    private static StreamCase java(Strategies strategy) {
        return new StreamCase.Java(strategy);
    }

    private static StreamCase perFrame(Strategies strategy) {
        return new StreamCase.Java(strategy, 0, StreamCase.Writer.JAVA_PER_FRAME);
    }

    private static StreamCase fedByC(Strategies strategy) {
        return new StreamCase.Java(strategy, 0, StreamCase.Writer.C);
    }

    /**
     * A run of these MB/s at each placement given: one round per row, each paired row in three passes of
     * the same figure; frames a second at 10,000 per MB/s and the reader's CPU at 60,000 / MB/s ns a frame.
     */
    private static Results<StreamCell, Throughput> run(Map<Placement, Map<StreamCase, Double>> byPlacement) {
        Results<StreamCell, Throughput> results = new Results<>();
        byPlacement.forEach((placement, mb) -> {
            mb.forEach((row, figure) -> {
                if (!StreamExperiment.paired(row)) {
                    results.put(new StreamCell(placement, row), throughput(row, figure));
                }
            });
            for (int pass = 1; pass <= 3; pass++) {
                for (Map.Entry<StreamCase, Double> row : mb.entrySet()) {
                    if (StreamExperiment.paired(row.getKey())) {
                        results.put(new StreamCell(placement, row.getKey(), pass), throughput(row.getKey(), row.getValue()));
                    }
                }
            }
        });
        return results;
    }

    private static Throughput throughput(StreamCase row, double mb) {
        boolean frames = !(row instanceof StreamCase.Iperf);
        return new Throughput(List.of(mb), frames ? List.of(mb * 1e4) : List.of(), frames ? List.of(6e4 / mb) : List.of());
    }

    /** {@return the findings as the report lists them: the verdict and title, then the figures} */
    private static String verdicts(Link link, Results<StreamCell, Throughput> results) {
        return new StreamFindings(link, results).all().stream()
                .map(f -> (f.holds() ? "holds" : "DOES NOT HOLD") + ": " + f.title() + "\n  " + f.figures())
                .collect(Collectors.joining("\n"));
    }

    /** MB/s of a tcp run at one placement, from the article's strategies to the ceilings, as an ordered map. */
    private static Map<StreamCase, Double> tcp(double unbuffered, double bufferedReadint, double noAlloc, double channel,
            double compact, double zeroCopy, double wirespeed, double spin, double nettyNio, double nettyEpoll,
            double unbufferedPerFrame, double zeroCopyPerFrame, double wirespeedFedByC, double spinFedByC,
            double uringFedByC, double uringSpinFedByC) {
        Map<StreamCase, Double> mb = new LinkedHashMap<>();
        mb.put(java(Strategies.UNBUFFERED), unbuffered);
        mb.put(java(Strategies.BUFFERED_READINT), bufferedReadint);
        mb.put(java(Strategies.NO_ALLOC), noAlloc);
        mb.put(java(Strategies.CHANNEL), channel);
        mb.put(java(Strategies.CHANNEL_COMPACT), compact);
        mb.put(java(Strategies.ZERO_COPY), zeroCopy);
        mb.put(java(Strategies.WIRESPEED), wirespeed);
        mb.put(java(Strategies.WIRESPEED_SPIN), spin);
        mb.put(java(Strategies.NETTY_NIO), nettyNio);
        mb.put(java(Strategies.NETTY_EPOLL), nettyEpoll);
        mb.put(perFrame(Strategies.UNBUFFERED), unbufferedPerFrame);
        mb.put(perFrame(Strategies.ZERO_COPY), zeroCopyPerFrame);
        mb.put(fedByC(Strategies.WIRESPEED), wirespeedFedByC);
        mb.put(fedByC(Strategies.WIRESPEED_SPIN), spinFedByC);
        mb.put(fedByC(Strategies.URING), uringFedByC);
        mb.put(fedByC(Strategies.URING_SPIN), uringSpinFedByC);
        mb.put(new StreamCase.Ceiling(false, 0), 3000.0);
        mb.put(new StreamCase.Ceiling(true, 0), 3800.0);
        mb.put(new StreamCase.Iperf(), 2500.0);
        return mb;
    }

    private static final String TCP = "tcp, different cores: ";

    @Test
    void everyTcpFindingHoldsOnFiguresThatMeetItsRule() {
        Map<StreamCase, Double> mb = tcp(50, 800, 760, 2000, 2100, 2400, 3500, 3700, 700, 900, 48, 350, 2900, 3700, 3000,
                3800);
        assertEquals("""
                holds: buffering speeds the unbuffered client up many times (>= 5x)
                  tcp, different cores: buffered-readint 800.0 MB/s / unbuffered 50.00 MB/s = 16.00x; article 15.81x
                holds: removing allocation does not speed the stream client up (<= 1.05x)
                  tcp, different cores: no-alloc 760.0 MB/s / buffered-readint 800.0 MB/s = 0.95x; article 0.88x
                holds: channels and direct buffers beat the best stream client (>= 1.5x)
                  tcp, different cores: channel 2,000.0 MB/s / buffered-readint 800.0 MB/s = 2.50x; article 2.94x
                holds: compact-on-demand beats append-until-end (> 1x)
                  tcp, different cores: channel-compact 2,100.0 MB/s / channel 2,000.0 MB/s = 1.05x; article 1.13x
                holds: zero-copy beats copying the body (> 1x)
                  tcp, different cores: zero-copy 2,400.0 MB/s / channel-compact 2,100.0 MB/s = 1.14x; article 1.24x
                holds: zero-copy is several times no-alloc (>= 2x)
                  tcp, different cores: zero-copy 2,400.0 MB/s / no-alloc 760.0 MB/s = 3.16x; article 4.23x
                holds: target: wirespeed is at least 3x the best Netty strategy (>= 3x)
                  tcp, different cores: wirespeed 3,500.0 MB/s / netty-epoll 900.0 MB/s = 3.89x
                holds: target: wirespeed-spin is at least 3x the best Netty strategy (>= 3x)
                  tcp, different cores: wirespeed-spin 3,700.0 MB/s / netty-epoll 900.0 MB/s = 4.11x
                holds: the 3x-Netty target is within the ceiling: 3x the best Netty strategy is at most what the best \
                C or iperf3 row reads (<= 1x)
                  tcp, different cores: 3x netty-epoll 2,700.0 MB/s / ceiling (best C or iperf3 row) 3,800.0 MB/s = 0.71x
                holds: buffering gains less when the server writes each frame on its own (Note 1) (< 1x)
                  tcp, different cores: zero-copy / unbuffered, per-frame server 7.29x / the same, batching server \
                48.00x = 0.15x
                holds: target: wirespeed is at least as fast as the article's best (zero-copy) (>= 1x)
                  tcp, different cores: wirespeed 3,500.0 MB/s / zero-copy 2,400.0 MB/s = 1.46x
                holds: target: wirespeed-spin is at least as fast as the article's best (zero-copy) (>= 1x)
                  tcp, different cores: wirespeed-spin 3,700.0 MB/s / zero-copy 2,400.0 MB/s = 1.54x
                holds: target: wirespeed's reader spends less CPU per message than zero-copy (< 1x)
                  tcp, different cores: wirespeed 17.14 cpu ns/msg / zero-copy 25.00 cpu ns/msg = 0.69x
                holds: target: wirespeed reaches 90% of the ceiling (>= 0.9x)
                  tcp, different cores: wirespeed 3,500.0 MB/s / ceiling (best C or iperf3 row) 3,800.0 MB/s = 0.92x
                holds: target: wirespeed-spin reaches 90% of the ceiling (>= 0.9x)
                  tcp, different cores: wirespeed-spin 3,700.0 MB/s / ceiling (best C or iperf3 row) 3,800.0 MB/s = \
                0.97x
                holds: target: wirespeed <- C writer reads at least 90% of the C reader that waits as it does \
                (blocking), fed by the same writer, on the median of interleaved passes (>= 0.9x)
                  tcp, different cores: wirespeed <- C writer / C read(2) blocking, pass by pass 0.97x / C read(2) \
                blocking 1.00x = 0.97x
                holds: target: wirespeed-spin <- C writer reads at least 90% of the C reader that waits as it does \
                (busy-polling), fed by the same writer, on the median of interleaved passes (>= 0.9x)
                  tcp, different cores: wirespeed-spin <- C writer / C read(2) busy-poll, pass by pass 0.97x / C \
                read(2) busy-poll 1.00x = 0.97x
                holds: target: the library's faster reader fed by the C writer reads at least 90% of the faster C \
                reader (blocking or busy-polling), on the median of interleaved passes (>= 0.9x)
                  tcp, different cores: the faster of wirespeed <- C writer and wirespeed-spin <- C writer / the \
                faster C reader, pass by pass 0.97x / the faster C reader 1.00x = 0.97x
                holds: target: one stream through io_uring reads at least as fast as the library's best other \
                reader, both fed by the C writer (>= 1x)
                  tcp, different cores: uring-spin <- C writer 3,800.0 MB/s / wirespeed-spin <- C writer 3,700.0 \
                MB/s = 1.03x""", verdicts(Link.TCP, run(Map.of(APART, mb))));
    }

    @Test
    void everyTcpFindingFailsOnFiguresThatMissItsRule() {
        Map<StreamCase, Double> mb = tcp(200, 800, 880, 1000, 1000, 1000, 900, 950, 1200, 1500, 100, 1000, 2000, 2500,
                2300, 2400);
        assertEquals("""
                DOES NOT HOLD: buffering speeds the unbuffered client up many times (>= 5x)
                  tcp, different cores: buffered-readint 800.0 MB/s / unbuffered 200.0 MB/s = 4.00x; article 15.81x
                DOES NOT HOLD: removing allocation does not speed the stream client up (<= 1.05x)
                  tcp, different cores: no-alloc 880.0 MB/s / buffered-readint 800.0 MB/s = 1.10x; article 0.88x
                DOES NOT HOLD: channels and direct buffers beat the best stream client (>= 1.5x)
                  tcp, different cores: channel 1,000.0 MB/s / buffered-readint 800.0 MB/s = 1.25x; article 2.94x
                DOES NOT HOLD: compact-on-demand beats append-until-end (> 1x)
                  tcp, different cores: channel-compact 1,000.0 MB/s / channel 1,000.0 MB/s = 1.00x; article 1.13x
                DOES NOT HOLD: zero-copy beats copying the body (> 1x)
                  tcp, different cores: zero-copy 1,000.0 MB/s / channel-compact 1,000.0 MB/s = 1.00x; article 1.24x
                DOES NOT HOLD: zero-copy is several times no-alloc (>= 2x)
                  tcp, different cores: zero-copy 1,000.0 MB/s / no-alloc 880.0 MB/s = 1.14x; article 4.23x
                DOES NOT HOLD: target: wirespeed is at least 3x the best Netty strategy (>= 3x)
                  tcp, different cores: wirespeed 900.0 MB/s / netty-epoll 1,500.0 MB/s = 0.60x
                DOES NOT HOLD: target: wirespeed-spin is at least 3x the best Netty strategy (>= 3x)
                  tcp, different cores: wirespeed-spin 950.0 MB/s / netty-epoll 1,500.0 MB/s = 0.63x
                DOES NOT HOLD: the 3x-Netty target is within the ceiling: 3x the best Netty strategy is at most what \
                the best C or iperf3 row reads (<= 1x)
                  tcp, different cores: 3x netty-epoll 4,500.0 MB/s / ceiling (best C or iperf3 row) 3,800.0 MB/s = \
                1.18x
                DOES NOT HOLD: buffering gains less when the server writes each frame on its own (Note 1) (< 1x)
                  tcp, different cores: zero-copy / unbuffered, per-frame server 10.00x / the same, batching server \
                5.00x = 2.00x
                DOES NOT HOLD: target: wirespeed is at least as fast as the article's best (zero-copy) (>= 1x)
                  tcp, different cores: wirespeed 900.0 MB/s / zero-copy 1,000.0 MB/s = 0.90x
                DOES NOT HOLD: target: wirespeed-spin is at least as fast as the article's best (zero-copy) (>= 1x)
                  tcp, different cores: wirespeed-spin 950.0 MB/s / zero-copy 1,000.0 MB/s = 0.95x
                DOES NOT HOLD: target: wirespeed's reader spends less CPU per message than zero-copy (< 1x)
                  tcp, different cores: wirespeed 66.67 cpu ns/msg / zero-copy 60.00 cpu ns/msg = 1.11x
                DOES NOT HOLD: target: wirespeed reaches 90% of the ceiling (>= 0.9x)
                  tcp, different cores: wirespeed 900.0 MB/s / ceiling (best C or iperf3 row) 3,800.0 MB/s = 0.24x
                DOES NOT HOLD: target: wirespeed-spin reaches 90% of the ceiling (>= 0.9x)
                  tcp, different cores: wirespeed-spin 950.0 MB/s / ceiling (best C or iperf3 row) 3,800.0 MB/s = \
                0.25x
                DOES NOT HOLD: target: wirespeed <- C writer reads at least 90% of the C reader that waits as it does \
                (blocking), fed by the same writer, on the median of interleaved passes (>= 0.9x)
                  tcp, different cores: wirespeed <- C writer / C read(2) blocking, pass by pass 0.67x / C read(2) \
                blocking 1.00x = 0.67x
                DOES NOT HOLD: target: wirespeed-spin <- C writer reads at least 90% of the C reader that waits as it \
                does (busy-polling), fed by the same writer, on the median of interleaved passes (>= 0.9x)
                  tcp, different cores: wirespeed-spin <- C writer / C read(2) busy-poll, pass by pass 0.66x / C \
                read(2) busy-poll 1.00x = 0.66x
                DOES NOT HOLD: target: the library's faster reader fed by the C writer reads at least 90% of the \
                faster C reader (blocking or busy-polling), on the median of interleaved passes (>= 0.9x)
                  tcp, different cores: the faster of wirespeed <- C writer and wirespeed-spin <- C writer / the \
                faster C reader, pass by pass 0.66x / the faster C reader 1.00x = 0.66x
                DOES NOT HOLD: target: one stream through io_uring reads at least as fast as the library's best other \
                reader, both fed by the C writer (>= 1x)
                  tcp, different cores: uring-spin <- C writer 2,400.0 MB/s / wirespeed-spin <- C writer 2,500.0 \
                MB/s = 0.96x""", verdicts(Link.TCP, run(Map.of(APART, mb))));
    }

    @Test
    void theUnixSocketJudgesTheArticlesClaimsWithoutTheArticlesTcpRatiosAndWithoutPeers() {
        Map<StreamCase, Double> mb = tcp(50, 800, 760, 2000, 2100, 2400, 3500, 3700, 700, 900, 48, 350, 2900, 3700, 3000,
                3800);
        List<Finding> findings = new StreamFindings(Link.UNIX, run(Map.of(APART, mb))).all();
        assertEquals(List.of("buffering speeds the unbuffered client up many times (>= 5x)",
                "removing allocation does not speed the stream client up (<= 1.05x)",
                "channels and direct buffers beat the best stream client (>= 1.5x)",
                "compact-on-demand beats append-until-end (> 1x)",
                "zero-copy beats copying the body (> 1x)",
                "zero-copy is several times no-alloc (>= 2x)",
                "target: wirespeed is at least as fast as the article's best (zero-copy) (>= 1x)",
                "target: wirespeed-spin is at least as fast as the article's best (zero-copy) (>= 1x)",
                "target: wirespeed's reader spends less CPU per message than zero-copy (< 1x)",
                "target: wirespeed reaches 90% of the ceiling (>= 0.9x)",
                "target: wirespeed-spin reaches 90% of the ceiling (>= 0.9x)",
                "target: wirespeed <- C writer reads at least 90% of the C reader that waits as it does (blocking), fed "
                        + "by the same writer, on the median of interleaved passes (>= 0.9x)",
                "target: wirespeed-spin <- C writer reads at least 90% of the C reader that waits as it does "
                        + "(busy-polling), fed by the same writer, on the median of interleaved passes (>= 0.9x)",
                "target: the library's faster reader fed by the C writer reads at least 90% of the faster C reader "
                        + "(blocking or busy-polling), on the median of interleaved passes (>= 0.9x)",
                "target: one stream through io_uring reads at least as fast as the library's best other reader, both "
                        + "fed by the C writer (>= 1x)"), findings.stream().map(Finding::title).toList());
        assertEquals("unix, different cores: buffered-readint 800.0 MB/s / unbuffered 50.00 MB/s = 16.00x",
                findings.get(0).figures(), "the article measured TCP only");
    }

    /** MB/s of a pipe run at one placement, the 1 MiB pipe's row and the ceilings included. */
    private static Map<StreamCase, Double> pipe(double unbuffered, double buffered, double bufferedReadint,
            double noAlloc, double zeroCopy, double wirespeed, double bigPipe) {
        Map<StreamCase, Double> mb = new LinkedHashMap<>();
        mb.put(java(Strategies.UNBUFFERED), unbuffered);
        mb.put(java(Strategies.BUFFERED), buffered);
        mb.put(java(Strategies.BUFFERED_READINT), bufferedReadint);
        mb.put(java(Strategies.NO_ALLOC), noAlloc);
        mb.put(java(Strategies.ZERO_COPY), zeroCopy);
        mb.put(java(Strategies.WIRESPEED), wirespeed);
        mb.put(java(Strategies.WIRESPEED_SPIN), wirespeed);
        mb.put(new StreamCase.Java(Strategies.WIRESPEED, StreamCase.BIG_PIPE, StreamCase.Writer.JAVA), bigPipe);
        return mb;
    }

    /** {@return the findings of the pipe itself, those the stream links share left out} */
    private static String pipeVerdicts(Results<StreamCell, Throughput> results) {
        return verdicts(Link.PIPE, results).lines().takeWhile(line -> !line.contains("as fast as the article's best"))
                .collect(Collectors.joining("\n"));
    }

    @Test
    void everyPipeFindingHoldsOnFiguresThatMeetItsRule() {
        Map<Placement, Map<StreamCase, Double>> run = new LinkedHashMap<>();
        run.put(APART, pipe(40, 500, 600, 620, 1000, 1700, 2800));
        run.put(TOGETHER, pipe(40, 500, 600, 620, 1800, 1700, 2800));
        assertEquals("""
                holds: unbuffered standard input is many times slower than System.in (>= 5x)
                  pipe, different cores: buffered-readint 600.0 MB/s / unbuffered 40.00 MB/s = 15.00x; pipe, same \
                core: buffered-readint 600.0 MB/s / unbuffered 40.00 MB/s = 15.00x; article 12.99x
                holds: wrapping System.in in another BufferedInputStream slows it (< 1x)
                  pipe, different cores: buffered 500.0 MB/s / buffered-readint 600.0 MB/s = 0.83x; pipe, same core: \
                buffered 500.0 MB/s / buffered-readint 600.0 MB/s = 0.83x; article 0.47x
                holds: zero-copy beats the best stream client on a pipe (> 1x)
                  pipe, different cores: zero-copy 1,000.0 MB/s / no-alloc 620.0 MB/s = 1.61x; pipe, same core: \
                zero-copy 1,800.0 MB/s / no-alloc 620.0 MB/s = 2.90x; article 1.36x
                holds: target: a 1 MiB pipe (F_SETPIPE_SZ through the native module) beats the default 64 KiB one \
                (>= 1.5x)
                  pipe, different cores: wirespeed (1 MiB pipe) 2,800.0 MB/s / wirespeed 1,700.0 MB/s = 1.65x; pipe, \
                same core: wirespeed (1 MiB pipe) 2,800.0 MB/s / wirespeed 1,700.0 MB/s = 1.65x
                holds: placement changes pipe throughput (zero-copy, best placement / worst) (>= 1.1x)
                  pipe: zero-copy, same core 1,800.0 MB/s / zero-copy, different cores 1,000.0 MB/s = 1.80x; \
                article 2.06x""", pipeVerdicts(run(run)));
    }

    @Test
    void everyPipeFindingFailsOnFiguresThatMissItsRule() {
        Map<Placement, Map<StreamCase, Double>> run = new LinkedHashMap<>();
        run.put(APART, pipe(200, 600, 600, 1000, 1000, 1700, 2000));
        run.put(TOGETHER, pipe(200, 600, 600, 1000, 1050, 1700, 2000));
        assertEquals("""
                DOES NOT HOLD: unbuffered standard input is many times slower than System.in (>= 5x)
                  pipe, different cores: buffered-readint 600.0 MB/s / unbuffered 200.0 MB/s = 3.00x; pipe, same \
                core: buffered-readint 600.0 MB/s / unbuffered 200.0 MB/s = 3.00x; article 12.99x
                DOES NOT HOLD: wrapping System.in in another BufferedInputStream slows it (< 1x)
                  pipe, different cores: buffered 600.0 MB/s / buffered-readint 600.0 MB/s = 1.00x; pipe, same core: \
                buffered 600.0 MB/s / buffered-readint 600.0 MB/s = 1.00x; article 0.47x
                DOES NOT HOLD: zero-copy beats the best stream client on a pipe (> 1x)
                  pipe, different cores: zero-copy 1,000.0 MB/s / no-alloc 1,000.0 MB/s = 1.00x; pipe, same core: \
                zero-copy 1,050.0 MB/s / no-alloc 1,000.0 MB/s = 1.05x; article 1.36x
                DOES NOT HOLD: target: a 1 MiB pipe (F_SETPIPE_SZ through the native module) beats the default 64 \
                KiB one (>= 1.5x)
                  pipe, different cores: wirespeed (1 MiB pipe) 2,000.0 MB/s / wirespeed 1,700.0 MB/s = 1.18x; pipe, \
                same core: wirespeed (1 MiB pipe) 2,000.0 MB/s / wirespeed 1,700.0 MB/s = 1.18x
                DOES NOT HOLD: placement changes pipe throughput (zero-copy, best placement / worst) (>= 1.1x)
                  pipe: zero-copy, same core 1,050.0 MB/s / zero-copy, different cores 1,000.0 MB/s = 1.05x; \
                article 2.06x""", pipeVerdicts(run(run)));
    }

    @Test
    void aPipeMeasuredAtOnePlacementMakesNoClaimAboutPlacement() {
        String verdicts = pipeVerdicts(run(Map.of(APART, pipe(40, 500, 600, 620, 1000, 1700, 2800))));
        assertEquals(4, verdicts.lines().filter(line -> !line.startsWith("  ")).count(), verdicts);
        assertFalse(verdicts.contains("placement changes pipe throughput"), verdicts);
    }
}
