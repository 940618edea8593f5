package dev.wirespeed.lab.experiments.many;

import dev.wirespeed.lab.cli.Args;
import dev.wirespeed.lab.cli.ConnectOptions;
import dev.wirespeed.lab.cli.HandshakesCommand;
import dev.wirespeed.lab.env.Children;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.result.Check;
import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.ChildReports;
import dev.wirespeed.lab.result.Figure;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Rule;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Table;
import dev.wirespeed.lab.result.Unit;
import dev.wirespeed.linux.tls.OpenSsl;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The handshake rows of the many-connections experiment ({@link ManyCase.Handshakes}): full TLS 1.3
 * handshakes a second against the library's epoll echo and Netty's epoll echo ({@code SslHandler}),
 * on the JDK's engine each and on OpenSSL each (the library's OpenSSL 3 through FFM; Netty's BoringSSL
 * from {@code netty-tcnative-boringssl-static}), the server's certificate EC P-256. The load is
 * {@code wirespeed handshakes}: {@value #CONNECTIONS} connections in flight from the library's client
 * loop over epoll, each connecting, completing a TLS 1.3 handshake and closing cleanly, the client
 * resuming no session; its engine is OpenSSL where it is found (the cheapest client), the same for
 * every server. What a handshake costs the server is its CPU time over the measured rounds per
 * handshake, read from {@code /proc}: the targets are judged on it, whoever limits the rate.
 *
 * <p>Thread safety: stateless.
 */
final class ManyHandshakes {
    /**
     * Connections in flight: enough that the server always has a handshake to work on while others
     * wait on the client or on their round trips, and few enough that a connection's handshake time is
     * not mostly its wait in the server's queue.
     */
    static final int CONNECTIONS = 64;
    /** The servers: the library's epoll loop and Netty's epoll server, one loop each. */
    static final List<ManyServer> SERVERS = List.of(ManyServer.LOOP_EPOLL, ManyServer.NETTY);
    /** The OpenSSL engine's target over the JDK's, in handshakes per server CPU-second. */
    static final double OPENSSL_OVER_JDK = 2.0;

    private ManyHandshakes() {
    }

    /**
     * How much each mode measures: about a minute in all by default.
     *
     * @param rounds rounds per server, the first a warm-up
     * @param roundMillis each round's length
     */
    record Plan(int rounds, int roundMillis) {
    }

    static Plan plan(Mode mode) {
        return switch (mode) {
            case QUICK -> new Plan(2, 1_000);
            case DEFAULT -> new Plan(5, 2_000);
            case FULL -> new Plan(8, 2_000);
        };
    }

    /** {@return the load's engine, as {@code --tls-engine} names it: OpenSSL where it is found} */
    static String clientEngine() {
        return OpenSsl.isAvailable() ? "openssl" : "jdk";
    }

    /**
     * Adds the cases this machine can run to {@code cases}, and notes the others with what they miss.
     *
     * @param lab the run, told what is skipped
     * @param cases the experiment's cases so far
     */
    static void addCases(LabContext lab, List<ManyCase> cases) {
        String load = ManyLoad.LOOP_EPOLL.unavailable();
        if (load != null) {
            lab.note("many handshakes: skipped: the load's client loop needs epoll: " + load);
            return;
        }
        for (boolean openssl : List.of(false, true)) {
            for (ManyServer server : SERVERS) {
                String missing = server.unavailable() != null ? server.unavailable()
                        : openssl ? missingOpenSsl(server) : null;
                if (missing != null) {
                    lab.note("many handshakes: " + server.label() + " on " + (openssl ? "OpenSSL" : "the JDK's engine")
                            + " skipped: " + missing);
                } else {
                    cases.add(new ManyCase.Handshakes(server, CONNECTIONS, openssl));
                }
            }
        }
    }

    /** {@return null where {@code server} can speak TLS through OpenSSL here, else what is missing} */
    private static String missingOpenSsl(ManyServer server) {
        if (server == ManyServer.NETTY) {
            return io.netty.handler.ssl.OpenSsl.isAvailable() ? null : "Netty's OpenSSL provider "
                    + "(netty-tcnative-boringssl-static) did not load: " + io.netty.handler.ssl.OpenSsl.unavailabilityCause();
        }
        return OpenSsl.isAvailable() ? null : "OpenSSL 3: " + OpenSsl.unavailableReason();
    }

    /**
     * Runs the load against the running server, reading the server's CPU time as each round's line
     * arrives, so that it covers the measured rounds (all but the first).
     *
     * @param lab the run
     * @param placement where the server runs and the load is pinned
     * @param kase the case
     * @param address the server's address
     * @param port the server's port
     * @param trust the server's certificate, which the load trusts
     * @param server the server's process
     * @return the figures of the measured rounds
     * @throws IOException if the load fails, prints what is not a round, or measures none
     * @throws InterruptedException if interrupted while it runs
     */
    static ManyResult.Handshakes run(LabContext lab, Placement placement, ManyCase.Handshakes kase, String address,
            String port, Path trust, Process server) throws IOException, InterruptedException {
        Plan plan = plan(lab.mode());
        lab.progress(String.format(Locale.ROOT, "many: %s, full TLS handshakes (%s engine), %d connections",
                kase.server().label(), kase.engine(), kase.connections()));
        Process load = new ProcessBuilder(lab.jvm().command(placement.clientCpu(),
                loadArgs(kase, plan, address, port, trust))).start();
        String what = "wirespeed handshakes against " + kase.server().label() + " (" + kase.engine() + " engine)";
        CompletableFuture<String> err = Children.drainLater(load.getErrorStream());
        List<ChildReport.Handshakes> rounds = new ArrayList<>();
        CpuTime afterWarmUp = CpuTime.NONE;
        CpuTime last = CpuTime.NONE;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(load.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                last = CpuTime.of(server.pid());
                ChildReport.Handshakes round = (ChildReport.Handshakes) ChildReports.read(line);
                if (round.round() == 1) {
                    afterWarmUp = last;
                } else {
                    rounds.add(round);
                }
            }
        } catch (IOException | ClassCastException e) {
            Children.stop(load);
            throw new IOException(what + " printed what is not a round: " + e.getMessage() + " | " + err.join(), e);
        }
        if (!load.waitFor(5, TimeUnit.MINUTES) || load.exitValue() != 0) {
            Children.stop(load);
            throw new IOException(what + " failed (exit " + load.exitValue() + "): " + err.join());
        }
        if (rounds.isEmpty()) {
            throw new IOException(what + " reported no measured round");
        }
        long handshakes = rounds.stream().mapToLong(ChildReport.Handshakes::handshakes).sum();
        double seconds = rounds.stream().mapToDouble(ChildReport.Handshakes::seconds).sum();
        long serverNanos = last.total() - afterWarmUp.total();
        return new ManyResult.Handshakes(stats(rounds, ChildReport.Handshakes::handshakesPerSecond),
                stats(rounds, ChildReport.Handshakes::p50), stats(rounds, ChildReport.Handshakes::p99),
                Stats.of(List.of(serverNanos / 1e3 / handshakes)), Stats.of(List.of(serverNanos / 1e9 / seconds)),
                stats(rounds, ChildReport.Handshakes::cpuShare));
    }

    /** {@return the load's command line, {@code wirespeed handshakes} and its options} */
    static List<String> loadArgs(ManyCase.Handshakes kase, Plan plan, String address, String port, Path trust) {
        return Args.of(HandshakesCommand.OPTIONS).with(ConnectOptions.HOST, address)
                .with(HandshakesCommand.PORT, Integer.valueOf(port)).with(HandshakesCommand.CONNECTIONS, kase.connections())
                .with(HandshakesCommand.ROUNDS, plan.rounds()).with(HandshakesCommand.ROUND_MS, (long) plan.roundMillis())
                .with(HandshakesCommand.TRUST, trust).with(HandshakesCommand.ENGINE, clientEngine()).toArgs();
    }

    private static Stats stats(List<ChildReport.Handshakes> rounds, Function<ChildReport.Handshakes, Double> figure) {
        return Stats.of(rounds.stream().map(figure).toList());
    }

    /** {@return the row's name: the server and its engine} */
    static String label(ManyCase.Handshakes kase) {
        return kase.server().label() + ", " + kase.engine() + " engine";
    }

    /**
     * {@return the handshakes' table, or null where none ran}
     *
     * @param results every case's result
     * @param placement where the server and the load ran
     * @param mode the run's mode
     */
    static Table table(Results<ManyCase, ManyResult> results, Placement placement, Mode mode) {
        List<List<String>> rows = new ArrayList<>();
        for (ManyCase kase : results.cases()) {
            if (kase instanceof ManyCase.Handshakes h && results.get(kase) instanceof ManyResult.Handshakes r) {
                rows.add(List.of(label(h),
                        String.format(Locale.ROOT, "%,.0f [%,.0f-%,.0f]", r.handshakesPerSecond().median(),
                                r.handshakesPerSecond().min(), r.handshakesPerSecond().max()),
                        String.format(Locale.ROOT, "%,.0f", r.serverCpuUsPerHandshake().median()),
                        String.format(Locale.ROOT, "%.0f%%", 100 * r.serverCpuShare().median()),
                        String.format(Locale.ROOT, "%.0f%%", 100 * r.loadCpuShare().median()),
                        String.format(Locale.ROOT, "%,.1f", r.p50().median() / 1000),
                        String.format(Locale.ROOT, "%,.1f", r.p99().median() / 1000)));
            }
        }
        if (rows.isEmpty()) {
            return null;
        }
        return new Table(String.format(Locale.ROOT, "many: full TLS 1.3 handshakes, %d connections in flight, each "
                + "connecting, handshaking and closing cleanly; the load: the library's client loop on the %s engine; "
                + "median of %d round(s) after one; %s (%s)", CONNECTIONS, clientEngine().equals("openssl") ? "OpenSSL"
                        : "JDK", plan(mode).rounds() - 1, placement, placement.cpus()),
                List.of("server", "handshakes/s [min-max]", "server CPU us/handshake", "server CPU", "load CPU",
                        "p50 ms", "p99 ms"),
                rows, List.of("each handshake a new TCP connection: TLS 1.3, X25519 (the load's first offer, which "
                        + "every server here takes), the server's self-signed EC P-256 certificate made by keytool, no "
                        + "resumption (the load offers no session; the servers on the JDK's engine send their one "
                        + "ticket each, those on OpenSSL none), then close_notify both ways; the load: 'wirespeed "
                        + "handshakes', a FrameClient over epoll, the same for every server",
                        "server CPU: all the server process's threads, user and system, over the measured rounds: per "
                        + "handshake (accepting, the handshake, the close) and as a share of one CPU; load CPU: the "
                        + "load's share of its CPU (near 100%, the load and not the server set the rate); p50, p99: "
                        + "from a connect's start to its handshake's end at the client, TCP's connect and the wait "
                        + "behind the other connections included"));
    }

    /**
     * {@return the handshake targets judged on {@code results}}: each where the cases it compares ran
     *
     * @param results every case's result
     * @param placement where the server and the load ran
     * @param notes told of each target left out, as it reads a row set aside, and why
     */
    static List<Finding> findings(Results<ManyCase, ManyResult> results, Placement placement,
            Consumer<String> notes) {
        List<Finding> findings = new ArrayList<>();
        String where = String.format(Locale.ROOT, "%s, full TLS 1.3 handshakes, %d connections, %s", ManyExperiment.NAME,
                CONNECTIONS, placement);
        for (boolean openssl : List.of(false, true)) {
            ManyCase.Handshakes ours = new ManyCase.Handshakes(ManyServer.LOOP_EPOLL, CONNECTIONS, openssl);
            ManyCase.Handshakes netty = new ManyCase.Handshakes(ManyServer.NETTY, CONNECTIONS, openssl);
            if (results.has(ours) && results.has(netty)) {
                ManyReads reads = new ManyReads(results, placement, notes);
                reads.decide(findings, Finding.target(ManyExperiment.NAME, "a full TLS 1.3 handshake costs the "
                        + "library's epoll loop at most the server CPU it costs Netty's, the " + ours.engine()
                        + " engine each: at least 1x Netty's handshakes per server CPU-second (Netty's CPU per "
                        + "handshake over the loop's), whoever limits the handshakes a second", Rule.atLeast(1.0),
                        List.of(new Check(where, cpu(reads, netty), cpu(reads, ours)))));
            }
        }
        ManyCase.Handshakes jdk = new ManyCase.Handshakes(ManyServer.LOOP_EPOLL, CONNECTIONS, false);
        ManyCase.Handshakes openssl = new ManyCase.Handshakes(ManyServer.LOOP_EPOLL, CONNECTIONS, true);
        if (results.has(jdk) && results.has(openssl)) {
            ManyReads reads = new ManyReads(results, placement, notes);
            reads.decide(findings, Finding.target(ManyExperiment.NAME, "on OpenSSL through FFM the library's epoll "
                    + "loop completes at least 2x the full TLS 1.3 handshakes per server CPU-second it does on the JDK's "
                    + "engine (the JDK engine's CPU per handshake over OpenSSL's), whoever limits the handshakes a "
                    + "second",
                    Rule.atLeast(OPENSSL_OVER_JDK), List.of(new Check(where, cpu(reads, jdk), cpu(reads, openssl)))));
        }
        return findings;
    }

    /** {@return the server's CPU per handshake, named with the handshakes a second it was measured at} */
    private static Figure cpu(ManyReads reads, ManyCase.Handshakes kase) {
        ManyResult.Handshakes r = (ManyResult.Handshakes) reads.read(kase);
        return new Figure(String.format(Locale.ROOT, "%s at %,.0f handshakes/s: server CPU", label(kase),
                r.handshakesPerSecond().median()), r.serverCpuUsPerHandshake(), Unit.CPU_US_PER_HANDSHAKE);
    }
}
