package dev.wirespeed.lab.experiments.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.cli.Args;
import dev.wirespeed.lab.env.Jvm;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.experiments.Experiments;
import dev.wirespeed.lab.experiments.stream.TlsStreamCase.Engine;
import dev.wirespeed.lab.experiments.stream.TlsStreamCase.Server;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Measurement;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Role;
import dev.wirespeed.lab.result.SetAside;
import dev.wirespeed.lab.result.Table;
import dev.wirespeed.lab.result.Unit;
import dev.wirespeed.lab.tls.SelfSigned;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * {@code stream-tls}'s rows, the order its cells run in, its untimed pass, the rows it sets aside, its table and
 * its target, on synthetic rounds.
 */
class TlsStreamExperimentTest {
    private static final LabContext QUICK = new LabContext(Mode.QUICK, new Jvm("unused", null),
            new PrintWriter(Writer.nullWriter()), false);
    private static final Placement APART = new Placement(Placement.Kind.DIFFERENT_CORES, 0, 1);
    private static final TlsStreamCase EPOLL_JDK = new TlsStreamCase(Server.LOOP_EPOLL, Engine.JDK);
    private static final TlsStreamCase EPOLL_OPENSSL = new TlsStreamCase(Server.LOOP_EPOLL, Engine.OPENSSL);
    private static final TlsStreamCase URING_JDK = new TlsStreamCase(Server.LOOP_URING, Engine.JDK);
    private static final TlsStreamCase URING_OPENSSL = new TlsStreamCase(Server.LOOP_URING, Engine.OPENSSL);
    private static final TlsStreamCase NETTY_JDK = new TlsStreamCase(Server.NETTY, Engine.JDK);
    private static final TlsStreamCase NETTY_OPENSSL = new TlsStreamCase(Server.NETTY, Engine.OPENSSL);

    /** Frames a second of each row: ours on OpenSSL over epoll the best, Netty's best on OpenSSL. */
    private static Map<TlsStreamCase, Double> figures() {
        Map<TlsStreamCase, Double> msg = new LinkedHashMap<>();
        msg.put(EPOLL_JDK, 9e6);
        msg.put(EPOLL_OPENSSL, 15e6);
        msg.put(URING_JDK, 8e6);
        msg.put(URING_OPENSSL, 14e6);
        msg.put(NETTY_JDK, 6e6);
        msg.put(NETTY_OPENSSL, 9e6);
        return msg;
    }

    /**
     * Three passes of every row, rounds of 0.9, 1 and 1.1 times its figure a pass; the receiver's CPU at
     * 50 ns a frame.
     */
    private static Results<TlsStreamCell, Throughput> run(Map<TlsStreamCase, Double> msg) {
        Results<TlsStreamCell, Throughput> results = new Results<>();
        for (TlsStreamCell cell : TlsStreamExperiment.cells(APART, List.copyOf(msg.keySet()), 3)) {
            double f = msg.get(cell.row());
            results.put(cell, new Throughput(List.of(0.9 * f * 108 / 1e6, f * 108 / 1e6, 1.1 * f * 108 / 1e6),
                    List.of(0.9 * f, f, 1.1 * f), List.of(50.0, 50.0, 50.0)));
        }
        return results;
    }

    /**
     * {@code passes} with an untimed pass in each row's first pass: reading what the row's timed rounds read,
     * but for {@code row}, whose untimed pass reads {@code factor} times that
     */
    private static Results<TlsStreamCell, Throughput> untimed(Results<TlsStreamCell, Throughput> passes,
            TlsStreamCase row, double factor) {
        Results<TlsStreamCell, Throughput> checked = new Results<>();
        for (TlsStreamCell cell : passes.cases()) {
            Throughput t = passes.get(cell);
            double mb = t.mbPerSec().median() * (cell.row().equals(row) ? factor : 1);
            checked.put(cell, UntimedPass.runsIn(cell.pass()) ? t.withUntimed(List.of(mb)) : t);
        }
        return checked;
    }

    private static final String TARGET = "target: one TLS stream of 100-byte frames, server to client between cores: "
            + "the library's best server streams at least 1.5x the frames a second of Netty's best (each on its faster "
            + "engine and, for the library, its faster loop transport) (>= 1.5x)";

    @Test
    void everyRowIsNamedByItsServerAndEngineTheLibrarysFirst() {
        assertEquals(List.of(EPOLL_JDK, EPOLL_OPENSSL, URING_JDK, URING_OPENSSL, NETTY_JDK, NETTY_OPENSSL),
                TlsStreamCase.all());
        assertEquals(List.of("wirespeed FrameServer over epoll, JDK engine",
                "wirespeed FrameServer over epoll, OpenSSL engine", "wirespeed FrameServer over io_uring, JDK engine",
                "wirespeed FrameServer over io_uring, OpenSSL engine", "Netty epoll, SslHandler, JDK engine",
                "Netty epoll, SslHandler, OpenSSL engine"), TlsStreamCase.all().stream().map(TlsStreamCase::name).toList());
        assertEquals(Role.LIBRARY, URING_OPENSSL.role());
        assertEquals(Role.PEER, NETTY_JDK.role());
    }

    @Test
    void aRowIsSkippedWithANoteNamingWhatIsMissingAndTheOthersRun() {
        LabContext lab = new LabContext(Mode.DEFAULT, new Jvm("unused", null), new PrintWriter(Writer.nullWriter()),
                false);
        List<TlsStreamCell> cells = new TlsStreamExperiment().cases(lab);
        for (TlsStreamCase row : TlsStreamCase.all()) {
            String why = row.unavailable();
            assertEquals(why == null, cells.stream().anyMatch(c -> c.row().equals(row)), row.name());
            assertEquals(why != null, lab.notes().contains("stream-tls: " + row.name() + " skipped: " + why),
                    row.name() + ": " + lab.notes());
        }
        assertTrue(cells.stream().allMatch(c -> c.placement().kind() != Placement.Kind.SAME_CORE),
                "server and client on two cores wherever the machine has them: " + cells);
    }

    @Test
    void theRowsRunInPassesEveryOtherPassReversed() {
        List<TlsStreamCase> rows = List.of(EPOLL_JDK, NETTY_JDK, NETTY_OPENSSL);
        assertEquals(List.of(new TlsStreamCell(APART, EPOLL_JDK, 1), new TlsStreamCell(APART, NETTY_JDK, 1),
                new TlsStreamCell(APART, NETTY_OPENSSL, 1), new TlsStreamCell(APART, NETTY_OPENSSL, 2),
                new TlsStreamCell(APART, NETTY_JDK, 2), new TlsStreamCell(APART, EPOLL_JDK, 2),
                new TlsStreamCell(APART, EPOLL_JDK, 3)), TlsStreamExperiment.cells(APART, rows, 3).subList(0, 7));
    }

    @Test
    void theServersAndTheReceiverAreTheCommandLinesTheExperimentNames() {
        SelfSigned identity = new SelfSigned(Path.of("/id/cert.pem"), Path.of("/id/key.pem"), "AB");
        assertEquals(List.of("server", "--transport", "tcp", "--port", "0", "--loop", "--impl", "uring", "--tls",
                "--cert", "/id/cert.pem", "--key", "/id/key.pem", "--tls-engine", "openssl"),
                TlsStreamExperiment.serverArgs(URING_OPENSSL, identity));
        assertEquals(List.of("--impl", "netty"), TlsStreamExperiment.serverArgs(NETTY_JDK, identity).subList(6, 8));
        assertEquals(List.of("client", "--transport", "tcp", "--port", "4433", "--strategy", "loop", "--round-ms",
                "125", "--warmup-ms", "50", "--no-jit-settle", "--rounds", "3", "--json", "--tls", "--trust",
                "/id/cert.pem", "--tls-engine", TlsStreamExperiment.receiverEngine().cliName()),
                TlsStreamExperiment.clientArgs("4433", identity.certificate(), QUICK));
    }

    @Test
    void theTargetIsTheLibrarysBestRowAgainstNettysBest() {
        List<Finding> findings = TlsStreamExperiment.findings(TlsStreamExperiment.merged(run(figures())));
        assertEquals(1, findings.size());
        Finding target = findings.getFirst();
        assertEquals(Finding.Kind.TARGET, target.kind());
        assertEquals("stream-tls", target.experiment());
        assertEquals(1.5, target.rule().value());
        assertEquals(EPOLL_OPENSSL.name(), target.checks().getFirst().numerator().name());
        assertEquals(NETTY_OPENSSL.name(), target.checks().getFirst().denominator().name());
        assertEquals(Unit.MSG_PER_S, target.checks().getFirst().numerator().unit());
        assertEquals(15.0 / 9, target.checks().getFirst().ratio(), 1e-9);
        assertTrue(target.holds(), target.figures());
    }

    @Test
    void theTargetFailsBelowOneAndAHalfTimesNettysBestWhicheverEngineIsIt() {
        Map<TlsStreamCase, Double> msg = figures();
        msg.put(NETTY_JDK, 10.1e6); // Netty's best now on the JDK's engine: 15 / 10.1 = 1.49x
        Finding target = TlsStreamExperiment.findings(TlsStreamExperiment.merged(run(msg))).getFirst();
        assertEquals(NETTY_JDK.name(), target.checks().getFirst().denominator().name());
        assertFalse(target.holds(), target.figures());
    }

    @Test
    void withoutNettysRowsOrOursThereIsNoTarget() {
        Map<TlsStreamCase, Double> ours = figures();
        ours.remove(NETTY_JDK);
        ours.remove(NETTY_OPENSSL);
        assertEquals(List.of(), TlsStreamExperiment.findings(TlsStreamExperiment.merged(run(ours))));
        Map<TlsStreamCase, Double> theirs = new LinkedHashMap<>();
        theirs.put(NETTY_JDK, 6e6);
        assertEquals(List.of(), TlsStreamExperiment.findings(TlsStreamExperiment.merged(run(theirs))));
    }

    @Test
    void theTableGivesEachOfOurRowsAgainstNettyOnTheSameEngineAndTheReceiversLoad() {
        Map<TlsStreamCase, Double> msg = figures();
        msg.remove(NETTY_OPENSSL); // no OpenSSL for Netty here: ours on OpenSSL have nothing to stand against
        List<Table> tables = new TlsStreamExperiment().tables(run(msg), QUICK);
        assertEquals(1, tables.size());
        Table table = tables.getFirst();
        assertEquals("stream-tls: one TLS stream of 100-byte frames over TCP loopback, server to client; median of the "
                + "measured rounds [min-max] of 3 interleaved run(s) a row, each 2 round(s) of 125 ms after a warm-up of "
                + "at least 50 ms; different cores (server cpu0, client cpu1)", table.title());
        assertEquals(List.of("server", "frames/s [min-max]", "MB/s", "x Netty, same engine", "client CPU ns/frame",
                "client CPU"), table.header());
        assertEquals(List.of("wirespeed FrameServer over epoll, JDK engine", "9,000,000 [8,100,000-9,900,000]", "972.0",
                "1.50x", "50.0", "45%"), table.rows().get(0));
        assertEquals("-", table.rows().get(1).get(3), "OpenSSL's row without Netty on OpenSSL");
        assertEquals(List.of("Netty epoll, SslHandler, JDK engine", "6,000,000 [5,400,000-6,600,000]", "648.0", "-",
                "50.0", "30%"), table.rows().get(4));
        assertEquals(5, table.rows().size());
        assertTrue(table.notes().get(2).startsWith("the receiver of every row: 'wirespeed client --strategy loop --tls'"),
                table.notes().get(2));
        assertEquals(List.of(), new TlsStreamExperiment().tables(new Results<>(), QUICK), "nothing ran: no table");
    }

    @Test
    void eachRowGivesFramesBytesAndTheReceiversCpuToResultsJson() {
        List<Measurement> rows = new TlsStreamExperiment().measurements(run(figures()), QUICK);
        assertEquals(3 * 6, rows.size());
        Measurement first = rows.getFirst();
        assertEquals("stream-tls", first.series().experiment());
        assertEquals(EPOLL_JDK.name(), first.series().name());
        assertEquals(Unit.MSG_PER_S, first.unit());
        assertEquals(9e6, first.stats().median());
        assertEquals(9, first.stats().runs(), "every measured round of the three passes");
        assertEquals(List.of(Unit.MSG_PER_S, Unit.MB_PER_S, Unit.CPU_NS_PER_MSG),
                rows.subList(0, 3).stream().map(Measurement::unit).toList());
        assertEquals(Role.PEER, rows.getLast().series().role());
    }

    @Test
    void eachRowsReceiverRunsOnceMoreInItsFirstPassCountingWhatATimedRoundRead() {
        List<TlsStreamCell> cells = TlsStreamExperiment.cells(APART, List.of(EPOLL_JDK, NETTY_JDK), 3);
        assertEquals(List.of(2, 2, 1, 1, 1, 1), cells.stream().map(c -> new TlsStreamExperiment().steps(c, QUICK))
                .toList(), "a step for the untimed pass in each row's first pass");
        Throughput timed = run(figures()).get(new TlsStreamCell(APART, EPOLL_JDK, 1));
        UnaryOperator<Args> counted = UntimedPass.options(timed, Mode.QUICK,
                TlsStreamExperiment.ROUND_FACTOR * Mode.QUICK.roundMillis());
        SelfSigned identity = new SelfSigned(Path.of("/id/cert.pem"), Path.of("/id/key.pem"), "AB");
        assertEquals(List.of("client", "--transport", "tcp", "--port", "4433", "--strategy", "loop", "--messages",
                String.valueOf((long) (9e6 * 0.125)), "--rounds", "3", "--json", "--tls", "--trust", "/id/cert.pem",
                "--tls-engine", TlsStreamExperiment.receiverEngine().cliName()),
                TlsStreamExperiment.clientArgs("4433", identity.certificate(), counted),
                "as many frames as a timed round of 125 ms read at 9,000,000 frames/s, and a timed run's rounds");
    }

    @Test
    void aRowWhoseTimedFigureStraysFromItsUntimedPassIsSetAsideMarkedAndListed() {
        Results<TlsStreamCell, Throughput> passes = untimed(run(figures()), NETTY_JDK, 1.3);
        SetAside nettyJdk = new SetAside("stream-tls", NETTY_JDK.name(), APART, null, new SetAside.Reason(
                SetAside.Cause.UNTIMED, Unit.MB_PER_S, TlsStreamExperiment.merged(passes).get(
                        new TlsStreamCell(APART, NETTY_JDK, 0)).mbPerSec(), 648 * 1.3, Throughput.TIMED_TOLERANCE));
        assertEquals(List.of(nettyJdk), new TlsStreamExperiment().setAside(passes, QUICK));
        assertEquals("Netty epoll, SslHandler, JDK engine at different cores: its timed rounds read 648.0 MB/s and an "
                + "untimed pass of the same client 842.4 MB/s: -23%, beyond the 15% the lab allows", nettyJdk.toString());

        Table table = new TlsStreamExperiment().tables(passes, QUICK).getFirst();
        assertEquals("6,000,000 [5,400,000-6,600,000] set aside", table.rows().get(4).get(1));
        assertEquals("15,000,000 [13,500,000-16,500,000]", table.rows().get(1).get(1), "a row trusted is not marked");
        assertEquals(List.of("each row's receiver also ran once counting frames instead of timing rounds: a row whose "
                + "timed median strays more than 15% from that pass's, or whose rounds spread wider than their median, is "
                + "set aside and judges no finding", "set aside, judging nothing: " + nettyJdk),
                table.notes().subList(3, 5));
        assertEquals(List.of(), new TlsStreamExperiment().setAside(untimed(run(figures()), NETTY_JDK, 1.15), QUICK),
                "within the tolerance");
    }

    @Test
    void theTargetIsNotJudgedOnARowSetAsideEvenOneNotTheFastestAndTheNotesSayWhy() {
        List<String> notes = new ArrayList<>();
        Results<TlsStreamCell, Throughput> trusted = untimed(run(figures()), NETTY_JDK, 1);
        assertEquals(1, TlsStreamExperiment.findings(TlsStreamExperiment.merged(trusted), notes::add).size());
        assertEquals(List.of(), notes);

        // Netty on the JDK's engine is not Netty's best, but finding Netty's best read it.
        Results<TlsStreamCell, Throughput> merged = TlsStreamExperiment.merged(untimed(run(figures()), NETTY_JDK, 1.3));
        assertEquals(List.of(), TlsStreamExperiment.findings(merged, notes::add));
        assertEquals(List.of("stream-tls: not judged, as it reads rows set aside: " + TARGET + ". "
                + TlsStreamExperiment.setAside(merged).getFirst()), notes);

        LabContext lab = new LabContext(Mode.QUICK, new Jvm("unused", null), new PrintWriter(Writer.nullWriter()), false);
        assertEquals(List.of(), new TlsStreamExperiment().findings(untimed(run(figures()), EPOLL_OPENSSL, 0.5), lab));
        assertTrue(lab.notes().getFirst().startsWith("stream-tls: not judged, as it reads rows set aside: " + TARGET
                + ". wirespeed FrameServer over epoll, OpenSSL engine at different cores: its timed rounds read "
                + "1,620.0 MB/s and an untimed pass of the same client 810.0 MB/s: +100%"), lab.notes()::toString);
    }

    @Test
    void aRowWhosePassesSpreadWiderThanTheirMedianIsSetAsideAndJudgesNothing() {
        Results<TlsStreamCell, Throughput> passes = run(figures());
        TlsStreamCell third = new TlsStreamCell(APART, URING_JDK, 3);
        Throughput slow = passes.get(third);
        Results<TlsStreamCell, Throughput> spread = new Results<>();
        for (TlsStreamCell cell : passes.cases()) {
            Throughput t = passes.get(cell);
            // The third pass read three times the others: rounds from 0.9 to 3.3 times the figure, about 1.1 times it.
            spread.put(cell, cell.equals(third) ? new Throughput(slow.mbRounds().stream().map(mb -> 3 * mb).toList(),
                    slow.msgRounds().stream().map(msg -> 3 * msg).toList(), slow.cpuRounds()) : t);
        }
        List<SetAside> setAside = new TlsStreamExperiment().setAside(spread, QUICK);
        assertEquals(List.of(URING_JDK.name()), setAside.stream().map(SetAside::row).toList());
        assertEquals(SetAside.Cause.SPREAD, setAside.getFirst().reason().cause());
        assertEquals("its figures spread from 777.6 to 2,851.2 MB/s about a median of 950.4: wider than the median",
                setAside.getFirst().reason().toString());
        assertEquals(List.of(), TlsStreamExperiment.findings(TlsStreamExperiment.merged(spread)));
        assertTrue(new TlsStreamExperiment().tables(spread, QUICK).getFirst().rows().get(2).get(1).endsWith(" set aside"));
    }

    @Test
    void itRunsWhenNamedOrWithFullAfterTheOtherStreamExperiments() {
        assertFalse(new TlsStreamExperiment().inDefaultRun());
        assertEquals(List.of("tcp", "unix", "pipe", "stream-tls"), Experiments.names().subList(0, 4));
        assertFalse(Experiments.names(false).contains("stream-tls"));
        assertTrue(Experiments.names(true).contains("stream-tls"));
    }
}
