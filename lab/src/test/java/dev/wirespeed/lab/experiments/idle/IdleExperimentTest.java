package dev.wirespeed.lab.experiments.idle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.Idle;
import dev.wirespeed.lab.Transport;
import dev.wirespeed.lab.cli.Args;
import dev.wirespeed.lab.cli.ClientCommand;
import dev.wirespeed.lab.cli.EchoCommand;
import dev.wirespeed.lab.cli.ListenOptions;
import dev.wirespeed.lab.cli.PingCommand;
import dev.wirespeed.lab.env.Jvm;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Percentile;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Table;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The idle experiment's rows, counts and findings, on synthetic results. */
class IdleExperimentTest {
    /** Lines of the client, the echo and the ping that a row completes. */
    private static final Args CLIENT = Args.of(ClientCommand.OPTIONS).with(ClientCommand.TRANSPORT, Transport.TCP);
    private static final Args ECHO = Args.of(EchoCommand.OPTIONS).with(EchoCommand.TRANSPORT, Transport.TCP)
            .with(ListenOptions.PORT, 0);
    private static final Args PING = Args.of(PingCommand.OPTIONS).with(PingCommand.TRANSPORT, Transport.TCP)
            .with(PingCommand.COUNT, 1L);

    private static final LabContext LAB = new LabContext(Mode.DEFAULT, new Jvm("unused", null),
            new PrintWriter(Writer.nullWriter()), false);
    private static final Placement APART = new Placement(Placement.Kind.DIFFERENT_CORES, 0, 1);
    private static final Placement TOGETHER = new Placement(Placement.Kind.SAME_CORE, 1, 1);

    private static IdleResult result(double mbPerSec, double p50) {
        Map<Percentile, Stats> latency = new EnumMap<>(Percentile.class);
        for (Percentile p : Percentile.values()) {
            latency.put(p, Stats.exact(p50 * (p.ordinal() + 1)));
        }
        return new IdleResult(Stats.exact(mbPerSec), Stats.exact(30), latency);
    }

    private static Results<IdleCell, IdleResult> results(double defaultMb, double defaultP50) {
        return results(defaultMb, defaultP50, Map.of());
    }

    /** Every other row reads 3,000 MB/s with a p50 of 8 us, unless {@code overrides} says otherwise. */
    private static Results<IdleCell, IdleResult> results(double defaultMb, double defaultP50,
            Map<IdleCell, IdleResult> overrides) {
        Results<IdleCell, IdleResult> results = new Results<>();
        for (Placement placement : List.of(APART, TOGETHER)) {
            for (IdleRow row : IdleRow.all()) {
                IdleCell cell = new IdleCell(placement, row);
                boolean byDefault = row.idle() == Idle.SPIN;
                results.put(cell, overrides.getOrDefault(cell, result(byDefault ? defaultMb : 3000,
                        byDefault ? defaultP50 : 8)));
            }
        }
        return results;
    }

    private static Finding finding(List<Finding> findings, String start) {
        return findings.stream().filter(f -> f.claim().startsWith(start)).findFirst().orElseThrow();
    }

    @Test
    void everyStrategyIsARowAfterBlockingAndTheClientAndPingAskForIt() {
        List<IdleRow> rows = IdleRow.all();
        assertEquals(List.of("blocking", "spin (default)", "busy-spin", "yield", "backoff"),
                rows.stream().map(IdleRow::name).toList());
        assertEquals(List.of("client", "--transport", "tcp", "--strategy", "wirespeed"), rows.get(0).client(CLIENT)
                .toArgs());
        assertEquals(List.of("ping", "--transport", "tcp", "--impl", "jdk-spin", "--idle", "backoff", "--count", "1"),
                rows.get(4).ping(PING).toArgs());
        assertEquals(List.of("echo", "--transport", "tcp", "--port", "0", "--spin", "--idle", "yield"),
                rows.get(3).echo(ECHO).toArgs());
    }

    @Test
    void onlyBusySpinningOnOneCpuMeasuresFewerRoundTripsAndTheTableSaysSo() {
        IdleCell starved = new IdleCell(TOGETHER, new IdleRow(Idle.BUSY_SPIN));
        assertTrue(IdleExperiment.starved(starved));
        assertFalse(IdleExperiment.starved(new IdleCell(APART, new IdleRow(Idle.BUSY_SPIN))));
        assertFalse(IdleExperiment.starved(new IdleCell(TOGETHER, new IdleRow(Idle.YIELD))));
        assertEquals(5_000 / IdleExperiment.STARVED_DIVISOR, IdleExperiment.count(starved, LAB));
        assertEquals(5_000, IdleExperiment.count(new IdleCell(TOGETHER, new IdleRow(null)), LAB));
        List<Table> tables = new IdleExperiment().tables(results(3000, 8), LAB);
        assertEquals(2, tables.size());
        assertFalse(tables.get(0).notes().stream().anyMatch(n -> n.startsWith("busy-spin")));
        assertTrue(tables.get(1).notes().contains("busy-spin: both ends spin on one CPU, so the ping-pong measured 50 "
                + "round trips after 50"), tables.get(1).notes().toString());
    }

    @Test
    void theDefaultIsJudgedAgainstTheBestOtherStrategyOfEachPlacement() {
        // Same core: busy-spin starved (p50 8 ms), yield the quickest (7 us) and backoff the fastest (3,500 MB/s).
        Results<IdleCell, IdleResult> results = results(2800, 8.5, Map.of(
                new IdleCell(TOGETHER, new IdleRow(Idle.BUSY_SPIN)), result(3000, 8000),
                new IdleCell(TOGETHER, new IdleRow(Idle.YIELD)), result(3000, 7),
                new IdleCell(TOGETHER, new IdleRow(Idle.BACKOFF)), result(3500, 60)));
        List<Finding> findings = new IdleExperiment().findings(results, LAB);
        Finding reads = finding(findings, "the default idle strategy (spin");
        Finding answers = finding(findings, "the default idle strategy's ping-pong");
        assertEquals("backoff", reads.checks().get(1).denominator().name());
        assertEquals(0.8, reads.checks().get(1).ratio(), 1e-9);
        assertEquals("yield p50", answers.checks().get(1).denominator().name());
        assertFalse(reads.holds());
        assertFalse(answers.holds());
    }

    @Test
    void theDefaultHoldsItsTargetsWhenLevelWithTheOthers() {
        List<Finding> findings = new IdleExperiment().findings(results(2800, 8.5), LAB);
        assertEquals(List.of("target: the default idle strategy (spin, yielding every 8th empty call) reads at least 90% "
                + "as fast as the fastest other one (>= 0.9x)", "target: the default idle strategy's ping-pong p50 is "
                + "within 10% of the quickest other one's (<= 1.1x)"), findings.stream().map(Finding::title).toList());
        Finding reads = finding(findings, "the default idle strategy (spin");
        assertEquals("idle, different cores: spin (default) 2,800.0 MB/s / busy-spin 3,000.0 MB/s = 0.93x; idle, same "
                + "core: spin (default) 2,800.0 MB/s / busy-spin 3,000.0 MB/s = 0.93x", reads.figures());
        assertTrue(reads.holds());
        Finding answers = finding(findings, "the default idle strategy's ping-pong");
        assertEquals("idle, different cores: spin (default) p50 8.50 us / busy-spin p50 8.00 us = 1.06x; idle, same "
                + "core: spin (default) p50 8.50 us / busy-spin p50 8.00 us = 1.06x", answers.figures());
        assertTrue(answers.holds());
    }

    @Test
    void theDefaultFailsWhereItReadsSlowerOrAnswersLaterThanTheOthers() {
        List<Finding> findings = new IdleExperiment().findings(results(2600, 9.2), LAB);
        Finding reads = finding(findings, "the default idle strategy (spin");
        assertEquals("idle, different cores: spin (default) 2,600.0 MB/s / busy-spin 3,000.0 MB/s = 0.87x; idle, same "
                + "core: spin (default) 2,600.0 MB/s / busy-spin 3,000.0 MB/s = 0.87x", reads.figures());
        assertFalse(reads.holds());
        Finding answers = finding(findings, "the default idle strategy's ping-pong");
        assertEquals("idle, different cores: spin (default) p50 9.20 us / busy-spin p50 8.00 us = 1.15x; idle, same "
                + "core: spin (default) p50 9.20 us / busy-spin p50 8.00 us = 1.15x", answers.figures());
        assertFalse(answers.holds());
    }

    @Test
    void aTableForEachPlacementWithThroughputCpuAndEveryPercentileOfEachStrategy() {
        Table table = new IdleExperiment().tables(results(2800, 8.5), LAB).get(0);
        assertEquals("idle: waiting for bytes, the library over SocketChannel, TCP loopback, 100-byte bodies; stream: "
                + "median of 4 round(s) of 100 ms; ping-pong: 5000 round trips after 5000, median of 1 run(s); "
                + "different cores (server cpu0, client cpu1)", table.title());
        assertEquals(List.of("case", "MB/s [min-max]", "CPU ns/msg", "p50 us", "p90 us", "p99 us", "p99.9 us", "p99.99 us",
                "max us"), table.header());
        assertEquals(List.of(
                List.of("blocking", "3,000.0 [3,000.0-3,000.0]", "30.0", "8.0", "16.0", "24.0", "32.0", "40.0", "48.0"),
                List.of("spin (default)", "2,800.0 [2,800.0-2,800.0]", "30.0", "8.5", "17.0", "25.5", "34.0", "42.5",
                        "51.0"),
                List.of("busy-spin", "3,000.0 [3,000.0-3,000.0]", "30.0", "8.0", "16.0", "24.0", "32.0", "40.0", "48.0"),
                List.of("yield", "3,000.0 [3,000.0-3,000.0]", "30.0", "8.0", "16.0", "24.0", "32.0", "40.0", "48.0"),
                List.of("backoff", "3,000.0 [3,000.0-3,000.0]", "30.0", "8.0", "16.0", "24.0", "32.0", "40.0", "48.0")),
                table.rows());
        assertEquals(List.of("both ends of the ping-pong wait alike; backoff: 100 spins, 10 yields, then parks of 1 us "
                + "doubling to 1 ms", "round trips beyond each percentile per run: p99 50, p99.9 5, p99.99 0; a tail with "
                + "fewer than 10 beyond it is a hint, not a figure, and no target is judged on it", "ping warm-up at least "
                + "200 ms, then until its JIT is idle for 100 ms; each echo primed with 20,000 round trips per priming "
                + "connection, but for busy-spin, whose echo would starve its primer"), table.notes());
    }

    @Test
    void everyRowsLinesArePicocliLinesOfTheClientTheEchoAndThePing() {
        for (IdleRow row : IdleRow.all()) {
            for (Args args : List.of(row.client(CLIENT), row.echo(ECHO), row.ping(PING))) {
                picocli.CommandLine.ParseResult parsed = dev.wirespeed.lab.Main.commandLine()
                        .parseArgs(args.toArgs().toArray(String[]::new));
                assertEquals(args.options().command(), parsed.subcommand().commandSpec().name(), row.name());
                assertEquals(List.of(), parsed.subcommand().unmatched(), row.name() + ": " + args);
            }
        }
    }

}
