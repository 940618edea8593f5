package dev.wirespeed.lab.experiments.many;

import dev.wirespeed.lab.Transport;
import dev.wirespeed.lab.env.CPrograms;
import dev.wirespeed.lab.env.Children;
import dev.wirespeed.lab.env.VethLink;
import dev.wirespeed.lab.experiment.CaseRunner;
import dev.wirespeed.lab.experiment.Experiment;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.result.Check;
import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.ChildReports;
import dev.wirespeed.lab.result.Figure;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Measurement;
import dev.wirespeed.lab.result.Medium;
import dev.wirespeed.lab.result.Percentile;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Role;
import dev.wirespeed.lab.result.Rule;
import dev.wirespeed.lab.result.Series;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Table;
import dev.wirespeed.lab.result.Unit;
import dev.wirespeed.lab.tls.SelfSigned;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * Many connections on one server: echo servers (the C epoll ceiling, the library's event loop, a
 * thread per connection, platform or virtual, and Netty's epoll server) under the lab's C load
 * generator, which opens 1 to 1,000 TCP connections, keeps {@value #WINDOW} frames of {@value #SIZE}
 * body bytes in flight on each and checks every echo byte for byte; the same load from the library's
 * client loop ({@code wirespeed load}) against the C echo, beside the C generator's; the same load over TLS,
 * and full TLS handshakes a second ({@link ManyHandshakes}); then the server's
 * resident memory per idle connection, with thousands held open after one round trip each. The server runs on one CPU
 * and the load on the other, so that the load never limits the server.
 */
public final class ManyExperiment implements Experiment<ManyCase, ManyResult> {
    /** The experiment's name on the command line. */
    static final String NAME = "many";
    /** Body bytes per frame. */
    static final int SIZE = 100;
    /** Frames in flight per connection. */
    static final int WINDOW = 16;
    /** Connections that come and go before the idle case's first look at the server's memory. */
    static final int SETTLE_CONNECTIONS = 100;
    /** The target for an idle connection's resident memory. */
    static final double IDLE_BYTES_TARGET = 16 * 1024;
    /** Fast connections beside the slow reader. */
    static final int SLOW_CASE_CONNECTIONS = 64;
    /** The servers measured across a link too. */
    static final List<ManyServer> ACROSS = List.of(ManyServer.C_EPOLL, ManyServer.LOOP_EPOLL, ManyServer.LOOP_URING,
            ManyServer.NETTY);
    /** The library's event loop on each of its transports: Selector, epoll, io_uring. */
    static final List<ManyServer> LOOPS = List.of(ManyServer.LOOP, ManyServer.LOOP_EPOLL, ManyServer.LOOP_URING);
    /** The servers measured over TLS: the library's epoll loop and Netty's epoll server, the JDK's engine each. */
    static final List<ManyServer> OVER_TLS = List.of(ManyServer.LOOP_EPOLL, ManyServer.NETTY);
    /** The most the server's resident memory may grow while a slow reader is connected. */
    static final double SLOW_GROWTH_BOUND = 4 * 1024 * 1024;

    /**
     * How much each mode measures.
     *
     * @param connections the loads' connection counts, ascending
     * @param framesPerRound frames a round echoes in all, over its connections (see {@link #framesPerConnection})
     * @param rounds rounds per load, the first a warm-up
     * @param idleConnections connections held for the memory case
     */
    record Settings(List<Integer> connections, long framesPerRound, int rounds, int idleConnections) {
        /**
         * {@return frames per connection per round} Fewer than 16 connections send what 16 would each,
         * since one connection echoes a tenth as fast as many.
         */
        long framesPerConnection(int connectionCount) {
            return Math.max(WINDOW, framesPerRound / Math.max(connectionCount, 16));
        }
    }

    /** An experiment. */
    public ManyExperiment() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "many connections: echo servers (C epoll, the library's event loop, a thread per connection, Netty) "
                + "under a C load of 1 to 1,000 pipelined TCP connections, the same over TLS, TLS handshakes a second, "
                + "and memory per idle connection";
    }

    /** A deep dive of ours, not an article's: it runs when named, or with {@code --full}. */
    @Override
    public boolean inDefaultRun() {
        return false;
    }

    static Settings settings(LabContext lab) {
        return switch (lab.mode()) {
            case QUICK -> new Settings(List.of(1, 256), 40_000, 2, 1_000);
            case DEFAULT -> new Settings(List.of(1, 16, 256, 1_000), 1_000_000, 6, 10_000);
            case FULL -> new Settings(List.of(1, 16, 256, 1_000), 4_000_000, 8, 10_000);
        };
    }

    /** {@return where the server and the load run: on different CPUs where the machine has two} */
    static Placement placement(LabContext lab) {
        return lab.placements().stream().filter(p -> p.kind() != Placement.Kind.SAME_CORE).findFirst()
                .orElse(Placement.UNPINNED);
    }

    @Override
    public List<ManyCase> cases(LabContext lab) throws IOException, InterruptedException {
        if (lab.program(CPrograms.Program.MANY).isEmpty()) {
            lab.note("many: skipped, its load generator is a C program and there is no C compiler");
            return List.of();
        }
        Settings settings = settings(lab);
        List<ManyCase> cases = new ArrayList<>();
        for (ManyServer server : ManyServer.values()) {
            if (server.unavailable() != null) {
                lab.note("many: " + server.label() + " skipped: " + server.unavailable());
                continue;
            }
            for (int connections : settings.connections()) {
                cases.add(new ManyCase.Load(server, connections));
            }
            if (server.bounded()) {
                cases.add(new ManyCase.Slow(server, SLOW_CASE_CONNECTIONS));
            }
        }
        for (ManyLoad generator : ManyLoad.values()) {
            if (generator == ManyLoad.C) {
                continue; // its row is the C echo's own load, above
            }
            if (generator.unavailable() != null) {
                lab.note("many: " + generator.label() + " skipped: " + generator.unavailable());
                continue;
            }
            cases.add(new ManyCase.Driven(generator, settings.connections().getLast()));
        }
        if (ManyLoad.LOOP_EPOLL.unavailable() == null) {
            for (boolean openssl : List.of(false, true)) {
                if (openssl && !dev.wirespeed.linux.tls.OpenSsl.isAvailable()) {
                    lab.note("many over TLS: the OpenSSL rows skipped: " + dev.wirespeed.linux.tls.OpenSsl
                            .unavailableReason());
                    continue;
                }
                for (ManyServer server : OVER_TLS) {
                    if (server.unavailable() == null) {
                        cases.add(new ManyCase.Tls(server, settings.connections().getLast(), openssl));
                    }
                }
            }
        }
        ManyHandshakes.addCases(lab, cases);
        for (ManyServer server : ManyServer.values()) {
            if (server.holdsIdle()) {
                cases.add(new ManyCase.Idle(server, settings.idleConnections()));
            }
        }
        Optional<VethLink> probe = VethLink.open(lab::note); // made and removed: can this machine make one?
        if (probe.isPresent()) {
            probe.get().close();
            for (ManyServer server : ACROSS) {
                cases.add(new ManyCase.Across(server, settings.connections().getLast()));
            }
        }
        return cases;
    }

    @Override
    public CaseRunner<ManyCase, ManyResult> open(LabContext lab) throws IOException, InterruptedException {
        Path many = lab.program(CPrograms.Program.MANY).orElseThrow(
                () -> new IOException("many.c is not compiled: the lab has no C compiler"));
        Placement placement = placement(lab);
        Settings settings = settings(lab);
        return new CaseRunner<>() {
            private ManyServer running;
            private boolean runningAcross;
            private boolean runningTls;
            /** The TLS engine of the running server and of its load: OpenSSL, else the JDK's. */
            private boolean runningOpenssl;
            /** The TLS cases' identity, made at the first of them. */
            private SelfSigned identity;
            private Process server;
            private String port;
            /** The link of the {@link ManyCase.Across} cases, made at the first of them. */
            private VethLink link;
            /** Where the load connects: loopback, or the namespace's end of the link. */
            private String address = "127.0.0.1";

            @Override
            public ManyResult run(ManyCase kase) throws IOException, InterruptedException {
                boolean across = kase instanceof ManyCase.Across;
                boolean tls = kase instanceof ManyCase.Tls || kase instanceof ManyCase.Handshakes;
                boolean openssl = kase instanceof ManyCase.Tls t ? t.openssl()
                        : kase instanceof ManyCase.Handshakes h && h.openssl();
                if (kase instanceof ManyCase.Idle || kase instanceof ManyCase.Handshakes || kase.server() != running
                        || across != runningAcross || tls != runningTls || openssl != runningOpenssl) {
                    // An idle case gets a server of its own, its memory untouched by loads; a handshake case
                    // one whose JIT has seen handshakes alone.
                    stopServer();
                    if (across && link == null) {
                        link = VethLink.open(note -> { }).orElseThrow(() -> new IOException(
                                "the veth link could be made when the cases were listed, and not now"));
                    }
                    address = across ? VethLink.PEER_ADDRESS : "127.0.0.1";
                    if (tls && identity == null) {
                        identity = SelfSigned.create(Files.createTempDirectory("wirespeed-many-tls"));
                    }
                    runningOpenssl = openssl;
                    server = start(kase.server(), across, tls);
                    running = kase.server();
                    runningAcross = across;
                    runningTls = tls;
                    port = Children.awaitListening(server, null);
                }
                try {
                    return switch (kase) {
                        case ManyCase.Load load -> load(load);
                        case ManyCase.Idle idle -> idle(idle);
                        case ManyCase.Slow slow -> slow(slow);
                        case ManyCase.Across far -> across(far);
                        case ManyCase.Driven driven -> driven(driven);
                        case ManyCase.Tls overTls -> overTls(overTls);
                        case ManyCase.Handshakes handshakes -> ManyHandshakes.run(lab, placement, handshakes, address,
                                port, identity.certificate(), server);
                    };
                } finally {
                    lab.stepDone();
                    if (kase instanceof ManyCase.Idle) {
                        stopServer();
                    }
                }
            }

            private Process start(ManyServer s, boolean across, boolean tls) throws IOException {
                List<String> command;
                if (s.echoArgs() == null) {
                    command = Children.pinned(placement.serverCpu(), List.of(many.toString(), "echo", address, "0"));
                } else {
                    List<String> args = new ArrayList<>(List.of("echo", "--transport", Transport.TCP.cliName(),
                            "--port", "0", "--bind", address));
                    args.addAll(s.echoArgs());
                    if (tls) {
                        args.addAll(List.of("--tls", "--cert", identity.certificate().toString(), "--key",
                                identity.key().toString(), "--tls-engine", runningOpenssl ? "openssl" : "jdk"));
                    }
                    command = lab.jvm().command(placement.serverCpu(), "echo-many-" + s.name().toLowerCase(Locale.ROOT),
                            args);
                }
                return new ProcessBuilder(across ? link.inside(command) : command).start();
            }

            private ManyResult.Load across(ManyCase.Across far) throws IOException, InterruptedException {
                lab.progress(String.format(Locale.ROOT, "many: %s, %,d connections across a veth link",
                        far.server().label(), far.connections()));
                return generate(far.server(), ManyLoad.C, far.connections(), 0, new long[1]);
            }

            private ManyResult.Load load(ManyCase.Load load) throws IOException, InterruptedException {
                lab.progress(String.format(Locale.ROOT, "many: %s, %,d connections", load.server().label(),
                        load.connections()));
                return generate(load.server(), ManyLoad.C, load.connections(), 0, new long[1]);
            }

            private ManyResult.Load overTls(ManyCase.Tls overTls) throws IOException, InterruptedException {
                lab.progress(String.format(Locale.ROOT, "many: %s over TLS (%s engines), %,d connections",
                        overTls.server().label(), overTls.engine(), overTls.connections()));
                return generate(overTls.server(), ManyLoad.LOOP_EPOLL, overTls.connections(), 0, new long[1]);
            }

            private ManyResult.Load driven(ManyCase.Driven driven) throws IOException, InterruptedException {
                lab.progress(String.format(Locale.ROOT, "many: %s driving the %s, %,d connections",
                        driven.generator().label(), driven.server().label(), driven.connections()));
                return generate(driven.server(), driven.generator(), driven.connections(), 0, new long[1]);
            }

            private ManyResult.Slow slow(ManyCase.Slow slow) throws IOException, InterruptedException {
                lab.progress(String.format(Locale.ROOT, "many: %s, %,d connections and a slow reader",
                        slow.server().label(), slow.connections()));
                ManyResult.Load alone = generate(slow.server(), ManyLoad.C, slow.connections(), 0, new long[1]);
                long before = Children.residentKib(server);
                long[] peak = {before};
                ManyResult.Load beside = generate(slow.server(), ManyLoad.C, slow.connections(), 1, peak);
                return new ManyResult.Slow(alone.framesPerSecond(), beside.framesPerSecond(), before, peak[0]);
            }

            /**
             * Runs a load generator against the server.
             *
             * @param load the C generator, or the library's client loop on one of its transports
             * @param slowReaders slow readers beside the load: the C generator's only
             * @param peakRssKib raised to the server's resident KiB at the end of each round where larger
             */
            private ManyResult.Load generate(ManyServer s, ManyLoad load, int connections, int slowReaders,
                    long[] peakRssKib) throws IOException, InterruptedException {
                String perConnection = String.valueOf(settings.framesPerConnection(connections));
                List<String> command;
                if (load.loadArgs() == null) {
                    command = Children.pinned(placement.clientCpu(), List.of(many.toString(), "load", address, port,
                            String.valueOf(connections), perConnection, String.valueOf(WINDOW), String.valueOf(SIZE),
                            String.valueOf(settings.rounds()), String.valueOf(slowReaders)));
                } else {
                    List<String> args = new ArrayList<>(List.of("load", "--host", address, "--port", port,
                            "--connections", String.valueOf(connections), "--frames", perConnection, "--window",
                            String.valueOf(WINDOW), "--size", String.valueOf(SIZE), "--rounds",
                            String.valueOf(settings.rounds())));
                    args.addAll(load.loadArgs());
                    if (runningTls) {
                        args.addAll(List.of("--tls", "--trust", identity.certificate().toString(), "--tls-engine",
                                runningOpenssl ? "openssl" : "jdk"));
                    }
                    command = lab.jvm().command(placement.clientCpu(), "load-" + load.name().toLowerCase(Locale.ROOT)
                            + (runningTls ? "-tls" : ""), args);
                }
                Process generator = new ProcessBuilder(command).start();
                String what = load.label() + " against " + s.label();
                CompletableFuture<String> err = Children.drainLater(generator.getErrorStream());
                List<ChildReport.Load> rounds = new ArrayList<>();
                // The server's CPU time is read as each round's line arrives, so that it covers the measured rounds.
                CpuTime serverCpuAfterWarmUp = CpuTime.NONE;
                CpuTime serverCpu = CpuTime.NONE;
                try (BufferedReader out = new BufferedReader(new InputStreamReader(generator.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line = out.readLine(); line != null; line = out.readLine()) {
                        serverCpu = cpuTime(server.pid());
                        peakRssKib[0] = Math.max(peakRssKib[0], Children.residentKib(server));
                        ChildReport.Load round = (ChildReport.Load) ChildReports.read(line);
                        if (round.round() == 1) {
                            serverCpuAfterWarmUp = serverCpu;
                        } else {
                            rounds.add(round);
                        }
                    }
                } catch (IOException | ClassCastException e) {
                    Children.stop(generator);
                    throw new IOException(what + " printed what is not a round: " + e.getMessage() + " | " + err.join(), e);
                }
                if (!generator.waitFor(5, TimeUnit.MINUTES) || generator.exitValue() != 0) {
                    Children.stop(generator);
                    throw new IOException(what + " failed (exit " + generator.exitValue() + "): " + err.join());
                }
                if (rounds.isEmpty()) {
                    throw new IOException(what + " reported no measured round");
                }
                long frames = rounds.stream().mapToLong(ChildReport.Load::frames).sum();
                long serverNanos = serverCpu.total() - serverCpuAfterWarmUp.total();
                double serverNsPerFrame = (double) serverNanos / frames;
                double kernelShare = serverNanos == 0 ? 0
                        : (double) (serverCpu.systemNanos() - serverCpuAfterWarmUp.systemNanos()) / serverNanos;
                return new ManyResult.Load(stats(rounds, ChildReport.Load::framesPerSecond),
                        stats(rounds, ChildReport.Load::p50), stats(rounds, ChildReport.Load::p99),
                        stats(rounds, ChildReport.Load::p999), stats(rounds, ChildReport.Load::max),
                        Stats.of(List.of(serverNsPerFrame)), Stats.of(List.of(kernelShare)),
                        stats(rounds, ChildReport.Load::cpuShare),
                        // the generator's own CPU, from what it reports of each round: its share of the round's time
                        Stats.of(List.of(rounds.stream().mapToDouble(r -> r.cpuShare() * r.seconds() * 1e9).sum()
                                / frames)));
            }

            private ManyResult.Idle idle(ManyCase.Idle idle) throws IOException, InterruptedException {
                lab.progress(String.format(Locale.ROOT, "many: %s, %,d idle connections", idle.server().label(),
                        idle.connections()));
                release(hold(SETTLE_CONNECTIONS));
                long before = Children.residentKib(server);
                Process holder = hold(idle.connections());
                try {
                    long held = Children.residentKib(server);
                    double perConnection = (held - before) * 1024.0 / idle.connections();
                    return new ManyResult.Idle(before, held, Stats.of(List.of(perConnection)));
                } finally {
                    release(holder);
                }
            }

            /** Starts {@code many hold} and waits until its connections are all open. */
            private Process hold(int connections) throws IOException, InterruptedException {
                Process holder = new ProcessBuilder(Children.pinned(placement.clientCpu(), List.of(many.toString(),
                        "hold", address, port, String.valueOf(connections), String.valueOf(SIZE)))).start();
                CompletableFuture<String> err = Children.drainLater(holder.getErrorStream());
                CompletableFuture<String> line = new CompletableFuture<>();
                Thread.ofVirtual().start(() -> {
                    try {
                        line.complete(new BufferedReader(new InputStreamReader(holder.getInputStream(),
                                StandardCharsets.UTF_8)).readLine());
                    } catch (IOException e) {
                        line.completeExceptionally(e);
                    }
                });
                String said;
                try {
                    said = line.get(2, TimeUnit.MINUTES);
                } catch (ExecutionException | TimeoutException e) {
                    said = null;
                }
                if (!("held " + connections).equals(said)) {
                    Children.stop(holder);
                    throw new IOException("many hold " + connections + " did not hold them: it said " + said + " | "
                            + err.join());
                }
                return holder;
            }

            private void release(Process holder) throws IOException, InterruptedException {
                holder.getOutputStream().close(); // its standard input ends: it closes the connections and exits
                if (!holder.waitFor(1, TimeUnit.MINUTES) || holder.exitValue() != 0) {
                    Children.stop(holder);
                    throw new IOException("many hold did not end cleanly");
                }
            }

            private void stopServer() {
                Children.stop(server);
                server = null;
                running = null;
            }

            @Override
            public void close() throws IOException {
                stopServer();
                if (identity != null) {
                    Files.deleteIfExists(identity.certificate());
                    Files.deleteIfExists(identity.key());
                    Files.deleteIfExists(identity.certificate().getParent());
                    identity = null;
                }
                if (link != null) {
                    link.close();
                    link = null;
                }
            }
        };
    }

    private static Stats stats(List<ChildReport.Load> rounds, Function<ChildReport.Load, Double> figure) {
        return Stats.of(rounds.stream().map(figure).toList());
    }

    /**
     * The CPU time a process has used, all its threads, in nanoseconds.
     *
     * @param userNanos in user mode
     * @param systemNanos in the kernel on its behalf
     */
    record CpuTime(long userNanos, long systemNanos) {
        static final CpuTime NONE = new CpuTime(0, 0);

        long total() {
            return userNanos + systemNanos;
        }
    }

    /**
     * {@return the CPU time process {@code pid} has used, from {@code /proc/PID/stat}} Linux counts it
     * in ticks of 1/100 s ({@code USER_HZ}).
     */
    static CpuTime cpuTime(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
        // The command name, in parentheses, may hold spaces: fields are counted after its closing one.
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        // utime and stime, fields 14 and 15
        return new CpuTime(Long.parseLong(fields[11]) * 10_000_000L, Long.parseLong(fields[12]) * 10_000_000L);
    }

    private Series series(ManyCase kase) {
        String name = switch (kase) {
            case ManyCase.Load load -> String.format(Locale.ROOT, "%s, %d connections", load.server().label(),
                    load.connections());
            case ManyCase.Idle idle -> String.format(Locale.ROOT, "%s, %d idle connections", idle.server().label(),
                    idle.connections());
            case ManyCase.Slow slow -> String.format(Locale.ROOT, "%s, %d connections beside a slow reader",
                    slow.server().label(), slow.connections());
            case ManyCase.Across far -> String.format(Locale.ROOT, "%s, %d connections across a veth link",
                    far.server().label(), far.connections());
            case ManyCase.Driven driven -> String.format(Locale.ROOT, "%s driving the %s, %d connections",
                    driven.generator().label(), driven.server().label(), driven.connections());
            case ManyCase.Tls overTls -> String.format(Locale.ROOT, "%s over TLS (%s engines), %d connections",
                    overTls.server().label(), overTls.engine(), overTls.connections());
            case ManyCase.Handshakes handshakes -> String.format(Locale.ROOT, "%s, full TLS handshakes (%s engine), %d "
                    + "connections", handshakes.server().label(), handshakes.engine(), handshakes.connections());
        };
        return new Series(name(), name, kase instanceof ManyCase.Driven ? Role.LIBRARY : kase.server().role(),
                Medium.TCP, SIZE);
    }

    @Override
    public List<Measurement> measurements(Results<ManyCase, ManyResult> results, LabContext lab) {
        Placement placement = placement(lab);
        List<Measurement> rows = new ArrayList<>();
        for (ManyCase kase : results.cases()) {
            Series series = series(kase);
            switch (results.get(kase)) {
                case ManyResult.Load r -> {
                    rows.add(series.at(placement, Unit.MSG_PER_S, r.framesPerSecond()));
                    rows.add(series.at(placement, Unit.CPU_NS_PER_MSG, kase instanceof ManyCase.Driven
                            ? r.loadCpuNsPerFrame() : r.serverCpuNsPerFrame()));
                    rows.add(series.at(placement, Unit.MICROSECONDS, r.p50()).percentile(Percentile.P50));
                    rows.add(series.at(placement, Unit.MICROSECONDS, r.p99()).percentile(Percentile.P99));
                    rows.add(series.at(placement, Unit.MICROSECONDS, r.p999()).percentile(Percentile.P999));
                    rows.add(series.at(placement, Unit.MICROSECONDS, r.max()).percentile(Percentile.MAX));
                }
                case ManyResult.Idle r -> rows.add(series.at(placement, Unit.BYTES, r.bytesPerConnection()));
                case ManyResult.Slow r -> rows.add(series.at(placement, Unit.MSG_PER_S, r.besideSlow()));
                case ManyResult.Handshakes r -> {
                    rows.add(series.at(placement, Unit.HANDSHAKES_PER_S, r.handshakesPerSecond()));
                    rows.add(series.at(placement, Unit.CPU_US_PER_HANDSHAKE, r.serverCpuUsPerHandshake()));
                }
            }
        }
        return rows;
    }

    @Override
    public List<Table> tables(Results<ManyCase, ManyResult> results, LabContext lab) {
        Placement placement = placement(lab);
        Settings settings = settings(lab);
        List<List<String>> loads = new ArrayList<>();
        List<List<String>> idles = new ArrayList<>();
        List<List<String>> slows = new ArrayList<>();
        List<List<String>> far = new ArrayList<>();
        List<List<String>> generators = new ArrayList<>();
        List<List<String>> overTls = new ArrayList<>();
        int most = settings.connections().getLast();
        ManyCase.Load cLoad = new ManyCase.Load(ManyServer.C_EPOLL, most);
        if (results.has(cLoad) && results.cases().stream().anyMatch(k -> k instanceof ManyCase.Driven)) {
            generators.add(generatorRow(ManyLoad.C, (ManyResult.Load) results.get(cLoad),
                    (ManyResult.Load) results.get(cLoad)));
        }
        for (ManyCase kase : results.cases()) {
            if (kase instanceof ManyCase.Driven driven) {
                ManyResult.Load r = (ManyResult.Load) results.get(kase);
                generators.add(generatorRow(driven.generator(), r,
                        results.has(cLoad) ? (ManyResult.Load) results.get(cLoad) : null));
                continue;
            }
            switch (results.get(kase)) {
                case ManyResult.Load r -> (kase instanceof ManyCase.Across ? far : kase instanceof ManyCase.Tls ? overTls
                        : loads).add(List.of(kase instanceof ManyCase.Tls t ? t.server().label() + ", " + t.engine()
                                + " engine" : kase.server().label(),
                        String.format(Locale.ROOT, "%,d", kase.connections()),
                        String.format(Locale.ROOT, "%,.0f [%,.0f-%,.0f]", r.framesPerSecond().median(),
                                r.framesPerSecond().min(), r.framesPerSecond().max()),
                        String.format(Locale.ROOT, "%,.0f", r.serverCpuNsPerFrame().median()),
                        String.format(Locale.ROOT, "%.0f%%", 100 * r.serverKernelShare().median()),
                        String.format(Locale.ROOT, "%.0f%%", 100 * r.loadCpuShare().median()),
                        micros(r.p50()), micros(r.p99()), micros(r.p999()), micros(r.max())));
                case ManyResult.Idle r -> idles.add(List.of(kase.server().label(),
                        String.format(Locale.ROOT, "%,d", kase.connections()),
                        String.format(Locale.ROOT, "%,.1f", r.beforeKib() / 1024.0),
                        String.format(Locale.ROOT, "%,.1f", r.heldKib() / 1024.0),
                        String.format(Locale.ROOT, "%,.1f", r.bytesPerConnection().median() / 1024)));
                case ManyResult.Slow r -> slows.add(List.of(kase.server().label(),
                        String.format(Locale.ROOT, "%,.0f", r.alone().median()),
                        String.format(Locale.ROOT, "%,.0f", r.besideSlow().median()),
                        String.format(Locale.ROOT, "%.2fx", r.besideSlow().median() / r.alone().median()),
                        String.format(Locale.ROOT, "%,.1f", (r.rssPeakKib() - r.rssBeforeKib()) / 1024.0)));
                case ManyResult.Handshakes r -> { } // their table is ManyHandshakes'
            }
        }
        List<Table> tables = new ArrayList<>();
        if (!loads.isEmpty()) {
            tables.add(new Table(String.format(Locale.ROOT, "many: echo servers under a pipelined load, TCP loopback, "
                    + "%d-byte bodies, %d frames in flight per connection; median of %d round(s) after one; %s (%s)",
                    SIZE, WINDOW, settings.rounds() - 1, placement, placement.cpus()),
                    List.of("server", "connections", "frames/s [min-max]", "server CPU ns/frame", "of it kernel", "load CPU",
                            "p50 us", "p99 us", "p99.9 us", "max us"),
                    loads, List.of(String.format(Locale.ROOT, "the load: the lab's C generator (many.c), every echo "
                            + "checked byte for byte; a round sends %,d frames in all (fewer than 16 connections "
                            + "send what 16 would each); latency from a frame's send to its echo, so it includes the "
                            + "window's queueing",
                            settings.framesPerRound()), "server CPU: all the server process's threads, user and system, "
                            + "over the measured rounds; of it kernel: the part that was system time (the kernel's "
                            + "work for the server: its system calls and the TCP stack under them); load CPU: the "
                            + "generator's share of one CPU then (near 100%, the load and not the server set the "
                            + "rate)")));
        }
        if (!generators.isEmpty()) {
            tables.add(new Table(String.format(Locale.ROOT, "many: load generators driving the C epoll echo, the same "
                    + "pipelined load (%,d connections, %d-byte bodies, %d frames in flight each); median of %d "
                    + "round(s) after one; %s (%s)", most, SIZE, WINDOW, settings.rounds() - 1, placement,
                    placement.cpus()),
                    List.of("generator", "frames/s [min-max]", "of the C generator's", "generator CPU ns/frame",
                            "generator CPU", "p50 us", "p99 us", "p99.9 us"),
                    generators, List.of("the C generator's row is the C epoll echo's load above; the library's "
                            + "generator is 'wirespeed load', a FrameClient on one loop thread, checking every echo "
                            + "byte for byte as the C one does; generator CPU: its process's CPU time, all threads, "
                            + "over the measured rounds, per frame and as a share of one CPU")));
        }
        if (!overTls.isEmpty()) {
            tables.add(new Table(String.format(Locale.ROOT, "many over TLS: the same pipelined load over TLS, one kind of "
                    + "engine at both ends, generated by the library's client loop; median of %d round(s) after "
                    + "one; %s (%s)", settings.rounds() - 1, placement, placement.cpus()),
                    List.of("server", "connections", "frames/s [min-max]", "server CPU ns/frame", "of it kernel", "load CPU",
                            "p50 us", "p99 us", "p99.9 us", "max us"),
                    overTls, List.of("the load: 'wirespeed load --tls', a FrameClient over epoll on one loop, "
                            + "trusting the server's self-signed EC P-256 certificate (made by keytool for the run); "
                            + "TLS 1.3 as negotiated; JDK engine: the JDK's SSLEngine (Netty's JDK provider); OpenSSL "
                            + "engine: the library's OpenSSL 3 through FFM, Netty's OpenSSL provider (BoringSSL from "
                            + "netty-tcnative-boringssl-static)")));
        }
        Table handshakes = ManyHandshakes.table(results, placement, lab.mode());
        if (handshakes != null) {
            tables.add(handshakes);
        }
        if (!far.isEmpty()) {
            tables.add(new Table(String.format(Locale.ROOT, "many across a link: the same load, the server in a "
                    + "network namespace behind a veth pair; median of %d round(s) after one; %s (%s)",
                    settings.rounds() - 1, placement, placement.cpus()),
                    List.of("server", "connections", "frames/s [min-max]", "server CPU ns/frame", "of it kernel", "load CPU",
                            "p50 us", "p99 us", "p99.9 us", "max us"),
                    far, List.of("the link: " + VethLink.PEER_ADDRESS + " in the namespace, " + VethLink.RATE
                            + " each way; the notes below say whether the kernel could add a delay (netem)")));
        }
        if (!slows.isEmpty()) {
            tables.add(new Table(String.format(Locale.ROOT, "many: %d pipelined connections alone, then beside a slow "
                    + "reader (one more connection that sends as fast as the server takes and never reads); %s (%s)",
                    SLOW_CASE_CONNECTIONS, placement, placement.cpus()),
                    List.of("server", "frames/s alone", "beside the slow reader", "ratio", "server RSS growth MiB"),
                    slows, List.of("frames/s: median of the measured rounds; RSS growth: the most resident memory seen "
                            + "at a round's end beside the slow reader, over that before it came", "Netty's echo is "
                            + "left out: written as its example is, without looking at writability, it would buffer "
                            + "what a reader that never reads is sent, without bound")));
        }
        if (!idles.isEmpty()) {
            tables.add(new Table(String.format(Locale.ROOT, "many: the server's resident memory with idle connections "
                    + "held, each after one round trip; %s (%s)", placement, placement.cpus()),
                    List.of("server", "connections", "RSS before MiB", "RSS held MiB", "KiB per connection"), idles,
                    List.of(String.format(Locale.ROOT, "before: after %d connections came and went; the "
                            + "thread-per-connection echoes are left out: a 512 KiB reader per connection by design",
                            SETTLE_CONNECTIONS))));
        }
        return tables;
    }

    private static List<String> generatorRow(ManyLoad generator, ManyResult.Load r, ManyResult.Load c) {
        return List.of(generator.label(),
                String.format(Locale.ROOT, "%,.0f [%,.0f-%,.0f]", r.framesPerSecond().median(), r.framesPerSecond().min(),
                        r.framesPerSecond().max()),
                c == null ? "-" : String.format(Locale.ROOT, "%.2fx", r.framesPerSecond().median()
                        / c.framesPerSecond().median()),
                String.format(Locale.ROOT, "%,.0f", r.loadCpuNsPerFrame().median()),
                String.format(Locale.ROOT, "%.0f%%", 100 * r.loadCpuShare().median()),
                micros(r.p50()), micros(r.p99()), micros(r.p999()));
    }

    private static String micros(Stats s) {
        return String.format(Locale.ROOT, "%,.1f", s.median());
    }

    @Override
    public List<Finding> findings(Results<ManyCase, ManyResult> results, LabContext lab) {
        return findings(results, settings(lab), placement(lab));
    }

    /**
     * {@return the targets judged on {@code results}}: each where the cases it compares ran
     *
     * @param results every case's result
     * @param settings the run's mode's settings: the loads at the most connections are judged
     * @param placement where the server and the load ran
     */
    static List<Finding> findings(Results<ManyCase, ManyResult> results, Settings settings, Placement placement) {
        List<Finding> findings = new ArrayList<>();
        int most = settings.connections().getLast();
        String where = String.format(Locale.ROOT, "%s, %,d connections, %s", NAME, most, placement);
        ManyCase.Load c = new ManyCase.Load(ManyServer.C_EPOLL, most);
        ManyCase.Load netty = new ManyCase.Load(ManyServer.NETTY, most);
        // Every transport of the library's loop is judged: a finding holds only if each does.
        List<ManyCase.Load> loops = new ArrayList<>();
        for (ManyServer loop : LOOPS) {
            if (results.has(new ManyCase.Load(loop, most))) {
                loops.add(new ManyCase.Load(loop, most));
            }
        }
        if (!loops.isEmpty() && results.has(c)) {
            findings.add(Finding.target(NAME, "the library's event loop echoes at least 0.9x the frames a second of "
                    + "the C epoll server", Rule.atLeast(0.9),
                    loops.stream().map(l -> new Check(where, rate(results, l), rate(results, c))).toList()));
            findings.add(Finding.target(NAME, "the library's event loop costs the server at most 1/0.9 of the C epoll "
                    + "server's CPU per frame (C's CPU per frame over the loop's, at least 0.9x): the first target seen "
                    + "from the server, whoever limits the rate", Rule.atLeast(0.9),
                    loops.stream().map(l -> new Check(where, cpu(results, c), cpu(results, l))).toList()));
        }
        ManyCase.Load epollLoop = new ManyCase.Load(ManyServer.LOOP_EPOLL, most);
        if (results.has(epollLoop) && results.has(c)) {
            findings.add(Finding.target(NAME, "the library's event loop over epoll costs the server no more CPU per "
                    + "frame than the C epoll server (C's CPU per frame over the loop's, at least 1.0x): the same "
                    + "system calls, so the difference is the loop's own user time", Rule.atLeast(1.0),
                    List.of(new Check(where, cpu(results, c), cpu(results, epollLoop)))));
        }
        if (!loops.isEmpty() && results.has(netty)) {
            findings.add(Finding.target(NAME, "the library's event loop echoes at least 1.2x the frames a second of "
                    + "Netty's, one loop each", Rule.atLeast(1.2),
                    loops.stream().map(l -> new Check(where, rate(results, l), rate(results, netty))).toList()));
            findings.add(Finding.target(NAME, "the library's event loop costs the server at most 1/1.2 of Netty's "
                    + "CPU per frame (Netty's over the loop's, at least 1.2x)", Rule.atLeast(1.2),
                    loops.stream().map(l -> new Check(where, cpu(results, netty), cpu(results, l))).toList()));
            ManyResult.Load theirs = (ManyResult.Load) results.get(netty);
            List<Check> tails = new ArrayList<>();
            for (ManyCase.Load l : loops) {
                ManyResult.Load ours = (ManyResult.Load) results.get(l);
                tails.add(new Check(where, new Figure(l.server().label() + " p99", ours.p99(), Unit.MICROSECONDS),
                        new Figure(netty.server().label() + " p99", theirs.p99(), Unit.MICROSECONDS)));
                tails.add(new Check(where, new Figure(l.server().label() + " p99.9", ours.p999(), Unit.MICROSECONDS),
                        new Figure(netty.server().label() + " p99.9", theirs.p999(), Unit.MICROSECONDS)));
            }
            findings.add(Finding.target(NAME, "the library's event loop's latency under that load is no worse than "
                    + "Netty's at p99 and p99.9", Rule.atMost(1.0), tails));
        }
        ManyCase.Load epoll = new ManyCase.Load(ManyServer.LOOP_EPOLL, most);
        ManyCase.Load uring = new ManyCase.Load(ManyServer.LOOP_URING, most);
        if (results.has(epoll) && results.has(uring)) {
            // On loopback, and across the veth link where it was made: the kernel's TCP work differs between them.
            List<Check> faster = new ArrayList<>(List.of(new Check(where, rate(results, uring), rate(results, epoll))));
            List<Check> cheaper = new ArrayList<>(List.of(new Check(where, cpu(results, epoll), cpu(results, uring))));
            ManyCase.Across epollFar = new ManyCase.Across(ManyServer.LOOP_EPOLL, most);
            ManyCase.Across uringFar = new ManyCase.Across(ManyServer.LOOP_URING, most);
            if (results.has(epollFar) && results.has(uringFar)) {
                String far = String.format(Locale.ROOT, "%s, %,d connections across a veth link", NAME, most);
                faster.add(new Check(far, rate(results, uringFar), rate(results, epollFar)));
                cheaper.add(new Check(far, cpu(results, epollFar), cpu(results, uringFar)));
            }
            findings.add(Finding.target(NAME, "the library's event loop over io_uring echoes at least 1.2x the frames "
                    + "a second of the same loop over epoll", Rule.atLeast(1.2), faster));
            findings.add(Finding.target(NAME, "the library's event loop over io_uring costs the server at most 1/1.2 "
                    + "of its CPU per frame over epoll (epoll's over io_uring's, at least 1.2x): the same target seen "
                    + "from the server, whoever limits the rate", Rule.atLeast(1.2), cheaper));
        }
        ManyCase.Load nettyUring = new ManyCase.Load(ManyServer.NETTY_URING, most);
        if (results.has(uring) && results.has(nettyUring)) {
            findings.add(Finding.target(NAME, "the library's event loop over io_uring costs the server at most 1/1.2 "
                    + "of Netty's io_uring transport's CPU per frame (Netty's over the loop's, at least 1.2x)",
                    Rule.atLeast(1.2), List.of(new Check(where, cpu(results, nettyUring), cpu(results, uring)))));
        }
        List<Check> drives = new ArrayList<>();
        for (ManyLoad generator : ManyLoad.values()) {
            ManyCase.Driven driven = new ManyCase.Driven(generator, most);
            if (generator != ManyLoad.C && results.has(driven) && results.has(c)) {
                drives.add(new Check(where, new Figure(generator.label(),
                        ((ManyResult.Load) results.get(driven)).framesPerSecond(), Unit.MSG_PER_S),
                        new Figure(ManyLoad.C.label(), ((ManyResult.Load) results.get(c)).framesPerSecond(),
                                Unit.MSG_PER_S)));
            }
        }
        if (!drives.isEmpty()) {
            findings.add(Finding.target(NAME, "the library's client loop drives the C epoll echo at least 0.9x as "
                    + "fast as the C load generator does, the same load", Rule.atLeast(0.9), drives));
        }
        for (boolean openssl : List.of(false, true)) {
            ManyCase.Tls ourTls = new ManyCase.Tls(ManyServer.LOOP_EPOLL, most, openssl);
            ManyCase.Tls nettyTls = new ManyCase.Tls(ManyServer.NETTY, most, openssl);
            if (!results.has(ourTls) || !results.has(nettyTls)) {
                continue;
            }
            String engine = ourTls.engine();
            String overTls = String.format(Locale.ROOT, "%s over TLS (%s engines), %,d connections, %s", NAME, engine,
                    most, placement);
            findings.add(Finding.target(NAME, "over TLS, the library's event loop costs the server at most 1/1.2 of "
                    + "Netty's CPU per frame, the " + engine + " engine each (Netty's over the loop's, at least 1.2x)",
                    Rule.atLeast(1.2), List.of(new Check(overTls, cpu(results, nettyTls), cpu(results, ourTls)))));
            ManyResult.Load ours = (ManyResult.Load) results.get(ourTls);
            ManyResult.Load theirs = (ManyResult.Load) results.get(nettyTls);
            findings.add(Finding.target(NAME, "over TLS, the library's event loop's latency under that load is no "
                    + "worse than Netty's at p99 and p99.9, the " + engine + " engine each", Rule.atMost(1.0), List.of(
                            new Check(overTls, new Figure(ourTls.server().label() + " p99", ours.p99(), Unit.MICROSECONDS),
                                    new Figure(nettyTls.server().label() + " p99", theirs.p99(), Unit.MICROSECONDS)),
                            new Check(overTls, new Figure(ourTls.server().label() + " p99.9", ours.p999(),
                                    Unit.MICROSECONDS), new Figure(nettyTls.server().label() + " p99.9", theirs.p999(),
                                            Unit.MICROSECONDS)))));
        }
        findings.addAll(ManyHandshakes.findings(results, placement));
        ManyCase.Load recorded = new ManyCase.Load(ManyServer.LOOP_EPOLL_JFR, most);
        if (results.has(epoll) && results.has(recorded)) {
            findings.add(Finding.target(NAME, "the server's JFR events, on and recorded, cost the loop at most 10% "
                    + "more CPU per frame", Rule.atMost(1.1), List.of(new Check(where, cpu(results, recorded),
                            cpu(results, epoll)))));
        }
        List<Check> keep = new ArrayList<>();
        List<Check> bounded = new ArrayList<>();
        for (ManyServer loop : LOOPS) {
            ManyCase.Slow slow = new ManyCase.Slow(loop, SLOW_CASE_CONNECTIONS);
            if (results.has(slow)) {
                ManyResult.Slow r = (ManyResult.Slow) results.get(slow);
                String at = String.format(Locale.ROOT, "%s, %d connections and a slow reader", NAME, slow.connections());
                keep.add(new Check(at, new Figure(loop.label() + " beside the slow reader", r.besideSlow(),
                        Unit.MSG_PER_S), new Figure(loop.label() + " alone", r.alone(), Unit.MSG_PER_S)));
                bounded.add(new Check(at, new Figure(loop.label() + " RSS growth",
                        Stats.of(List.of(Math.max(0, r.rssPeakKib() - r.rssBeforeKib()) * 1024.0)), Unit.BYTES),
                        new Figure("the bound", Stats.exact(SLOW_GROWTH_BOUND), Unit.BYTES)));
            }
        }
        if (!keep.isEmpty()) {
            findings.add(Finding.target(NAME, "beside a slow reader, the library's event loop's other connections "
                    + "keep at least 90% of their frames a second", Rule.atLeast(0.9), keep));
            findings.add(Finding.target(NAME, "a slow reader grows the library's event loop's resident memory by "
                    + "at most 4 MiB", Rule.atMost(1.0), bounded));
        }
        List<Check> memory = new ArrayList<>();
        for (ManyServer loop : LOOPS) {
            ManyCase.Idle idle = new ManyCase.Idle(loop, settings.idleConnections());
            if (results.has(idle)) {
                ManyResult.Idle r = (ManyResult.Idle) results.get(idle);
                memory.add(new Check(String.format(Locale.ROOT, "%s, %,d idle connections", NAME, idle.connections()),
                        new Figure(loop.label() + " per connection", r.bytesPerConnection(), Unit.BYTES),
                        new Figure("the target", Stats.exact(IDLE_BYTES_TARGET), Unit.BYTES)));
            }
        }
        if (!memory.isEmpty()) {
            findings.add(Finding.target(NAME, "an idle connection costs the library's event loop at most 16 KiB of "
                    + "resident memory", Rule.atMost(1.0), memory));
        }
        return findings;
    }

    /** {@code kase}: a load on loopback or across the link, whose result is a {@link ManyResult.Load}. */
    private static Figure cpu(Results<ManyCase, ManyResult> results, ManyCase kase) {
        return new Figure(kase.server().label() + " server CPU", ((ManyResult.Load) results.get(kase)).serverCpuNsPerFrame(),
                Unit.CPU_NS_PER_MSG);
    }

    /** {@code kase}: a load on loopback or across the link, whose result is a {@link ManyResult.Load}. */
    private static Figure rate(Results<ManyCase, ManyResult> results, ManyCase kase) {
        return new Figure(kase.server().label(), ((ManyResult.Load) results.get(kase)).framesPerSecond(), Unit.MSG_PER_S);
    }
}
