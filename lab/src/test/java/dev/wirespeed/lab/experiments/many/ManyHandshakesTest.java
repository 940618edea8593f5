package dev.wirespeed.lab.experiments.many;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.Main;
import dev.wirespeed.lab.env.Jvm;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Table;
import dev.wirespeed.lab.result.Unit;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The many experiment's handshake rows on synthetic results: their table, each target where it holds
 * and where it fails with the figures a reader sees, and the load's command line.
 */
class ManyHandshakesTest {
    private static final LabContext LAB = new LabContext(Mode.DEFAULT, new Jvm("unused", null),
            new PrintWriter(Writer.nullWriter()), false);
    private static final Placement APART = new Placement(Placement.Kind.DIFFERENT_CORES, 0, 1);
    private static final String WHERE = "many, full TLS 1.3 handshakes, 64 connections, different cores: ";
    private static final String OURS = "wirespeed FrameServer over epoll, 1 loop";
    private static final String NETTY = "Netty epoll, 1 event loop";

    private static ManyCase.Handshakes hs(ManyServer server, boolean openssl) {
        return new ManyCase.Handshakes(server, ManyHandshakes.CONNECTIONS, openssl);
    }

    private static ManyResult.Handshakes result(double perSecond, double cpuUs, double serverShare) {
        return new ManyResult.Handshakes(Stats.exact(perSecond), Stats.exact(20_000), Stats.exact(45_000),
                Stats.exact(cpuUs), Stats.exact(serverShare), Stats.exact(0.97));
    }

    /** The findings on results of these cases alone, each followed by its result. */
    private static List<Finding> judged(Object... caseThenResult) {
        Results<ManyCase, ManyResult> results = new Results<>();
        for (int i = 0; i < caseThenResult.length; i += 2) {
            results.put((ManyCase) caseThenResult[i], (ManyResult) caseThenResult[i + 1]);
        }
        return ManyHandshakes.findings(results, APART, note -> {
            throw new AssertionError("a target left out: " + note);
        });
    }

    private static void assertVerdict(boolean holds, String claim, String figures, List<Finding> findings) {
        Finding finding = findings.stream().filter(f -> f.claim().equals(claim)).findFirst()
                .orElseThrow(() -> new AssertionError("no finding '" + claim + "' in " + findings));
        assertEquals(figures, finding.figures(), finding.title());
        assertEquals(holds, finding.holds(), finding.title() + ": " + finding.figures());
    }

    private static String cheaperThanNetty(String engine) {
        return "a full TLS 1.3 handshake costs the library's epoll loop at most the server CPU it costs Netty's, the "
                + engine + " engine each: at least 1x Netty's handshakes per server CPU-second (Netty's CPU per "
                + "handshake over the loop's), whoever limits the handshakes a second";
    }

    @Test
    void theLoopCostsTheServerAtMostNettysCpuPerHandshakeOnTheSameKindOfEngine() {
        for (boolean openssl : List.of(false, true)) {
            String engine = openssl ? "OpenSSL" : "JDK";
            assertVerdict(true, cheaperThanNetty(engine), WHERE + NETTY + ", " + engine + " engine at 1,000 "
                    + "handshakes/s: server CPU 900.0 cpu us/handshake / " + OURS + ", " + engine + " engine at 1,100 "
                    + "handshakes/s: server CPU 850.0 cpu us/handshake = 1.06x",
                    judged(hs(ManyServer.NETTY, openssl), result(1_000, 900, 0.99), hs(ManyServer.LOOP_EPOLL, openssl),
                            result(1_100, 850, 0.99)));
            // Faster, yet dearer per handshake: the verdict is the CPU's.
            assertVerdict(false, cheaperThanNetty(engine), WHERE + NETTY + ", " + engine + " engine at 1,000 "
                    + "handshakes/s: server CPU 900.0 cpu us/handshake / " + OURS + ", " + engine + " engine at 1,200 "
                    + "handshakes/s: server CPU 950.0 cpu us/handshake = 0.95x",
                    judged(hs(ManyServer.NETTY, openssl), result(1_000, 900, 0.99), hs(ManyServer.LOOP_EPOLL, openssl),
                            result(1_200, 950, 0.99)));
        }
    }

    private static final String OPENSSL_OVER_JDK = "on OpenSSL through FFM the library's epoll loop completes at least "
            + "2x the full TLS 1.3 handshakes per server CPU-second it does on the JDK's engine (the JDK engine's CPU "
            + "per handshake over OpenSSL's), whoever limits the handshakes a second";

    @Test
    void onOpenSslTheLoopCompletesTwiceTheHandshakesPerCpuSecondOfTheJdkEngine() {
        assertVerdict(true, OPENSSL_OVER_JDK, WHERE + OURS + ", JDK engine at 1,100 handshakes/s: server CPU 850.0 cpu "
                + "us/handshake / " + OURS + ", OpenSSL engine at 4,000 handshakes/s: server CPU 200.0 cpu us/handshake "
                + "= 4.25x", judged(hs(ManyServer.LOOP_EPOLL, false), result(1_100, 850, 0.99),
                        hs(ManyServer.LOOP_EPOLL, true), result(4_000, 200, 0.8)));
        assertVerdict(false, OPENSSL_OVER_JDK, WHERE + OURS + ", JDK engine at 1,100 handshakes/s: server CPU 850.0 cpu "
                + "us/handshake / " + OURS + ", OpenSSL engine at 1,800 handshakes/s: server CPU 500.0 cpu us/handshake "
                + "= 1.70x", judged(hs(ManyServer.LOOP_EPOLL, false), result(1_100, 850, 0.99),
                        hs(ManyServer.LOOP_EPOLL, true), result(1_800, 500, 0.9)));
    }

    @Test
    void aTargetWhoseRowsDidNotBothRunIsNotJudged() {
        assertEquals(List.of(), judged(hs(ManyServer.LOOP_EPOLL, true), result(4_000, 200, 0.8),
                hs(ManyServer.NETTY, false), result(1_000, 900, 0.99)));
    }

    @Test
    void theTableHasARowPerServerAndEngineInTheOrderTheyRan() {
        Results<ManyCase, ManyResult> r = new Results<>();
        r.put(hs(ManyServer.LOOP_EPOLL, false), new ManyResult.Handshakes(new Stats(1_100, 1_050, 1_180, 4),
                Stats.exact(58_000), Stats.exact(71_500), Stats.exact(850), Stats.exact(0.994), Stats.exact(0.62)));
        r.put(hs(ManyServer.NETTY, true), result(4_000, 200, 0.8));
        Table table = ManyHandshakes.table(r, APART, Mode.DEFAULT);
        assertTrue(table.title().startsWith("many: full TLS 1.3 handshakes, 64 connections in flight, each connecting, "
                + "handshaking and closing cleanly; the load: the library's client loop on the "), table.title());
        assertTrue(table.title().contains(" engine; median of 4 round(s) after one; different cores"), table.title());
        assertEquals(List.of("server", "handshakes/s [min-max]", "server CPU us/handshake", "server CPU", "load CPU",
                "p50 ms", "p99 ms"), table.header());
        assertEquals(List.of(
                List.of(OURS + ", JDK engine", "1,100 [1,050-1,180]", "850", "99%", "62%", "58.0", "71.5"),
                List.of(NETTY + ", OpenSSL engine", "4,000 [4,000-4,000]", "200", "80%", "97%", "20.0", "45.0")),
                table.rows());
        assertNull(ManyHandshakes.table(new Results<>(), APART, Mode.DEFAULT), "no rows, no table");
    }

    @Test
    void theExperimentReportsTheHandshakesTableAndMeasurements() {
        Results<ManyCase, ManyResult> r = new Results<>();
        r.put(hs(ManyServer.LOOP_EPOLL, true), result(4_000, 200, 0.8));
        ManyExperiment many = new ManyExperiment();
        List<Table> tables = many.tables(r, LAB);
        assertEquals(1, tables.size(), tables.toString());
        assertEquals(List.of(OURS + ", OpenSSL engine"), tables.getFirst().rows().stream().map(List::getFirst).toList());
        var rows = many.measurements(r, LAB);
        assertEquals(List.of(Unit.HANDSHAKES_PER_S, Unit.CPU_US_PER_HANDSHAKE), rows.stream().map(m -> m.unit()).toList());
        assertEquals(OURS + ", full TLS handshakes (OpenSSL engine), 64 connections", rows.getFirst().series().name());
    }

    @Test
    void theCasesAreEveryServerOnEachEngineOrNotedWithWhatTheyMiss() {
        LabContext lab = new LabContext(Mode.DEFAULT, new Jvm("unused", null), new PrintWriter(Writer.nullWriter()),
                false);
        List<ManyCase> cases = new ArrayList<>();
        ManyHandshakes.addCases(lab, cases);
        List<String> notes = lab.notes();
        List<ManyCase> all = List.of(hs(ManyServer.LOOP_EPOLL, false), hs(ManyServer.NETTY, false),
                hs(ManyServer.LOOP_EPOLL, true), hs(ManyServer.NETTY, true));
        assertEquals(all.stream().filter(cases::contains).toList(), cases, "in this order");
        for (String note : notes) {
            assertTrue(note.startsWith("many handshakes: "), note);
        }
        assertTrue(cases.size() + notes.size() == all.size() || (cases.isEmpty() && notes.size() == 1),
                "each case runs or is noted: " + cases + " " + notes);
    }

    @Test
    void theLoadsOptionsAreOptionsTheHandshakesCommandTakes() {
        for (boolean openssl : List.of(false, true)) {
            List<String> args = ManyHandshakes.loadArgs(hs(ManyServer.NETTY, openssl),
                    ManyHandshakes.plan(Mode.DEFAULT), "127.0.0.1", "1", Path.of("cert.pem"));
            picocli.CommandLine.ParseResult parsed = Main.commandLine().parseArgs(args.toArray(String[]::new));
            assertEquals("handshakes", parsed.subcommand().commandSpec().name());
            assertEquals(List.of(), parsed.subcommand().unmatched());
        }
    }
}
