package dev.wirespeed.lab.experiments.hostile;

import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.lab.LoopImpl;
import dev.wirespeed.lab.Transport;
import dev.wirespeed.lab.cli.Args;
import dev.wirespeed.lab.cli.ConnectOptions;
import dev.wirespeed.lab.cli.EchoCommand;
import dev.wirespeed.lab.cli.ListenOptions;
import dev.wirespeed.lab.cli.LoadCommand;
import dev.wirespeed.lab.env.CPrograms;
import dev.wirespeed.lab.env.Children;
import dev.wirespeed.lab.env.Jvm;
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
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Rule;
import dev.wirespeed.lab.result.Series;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Table;
import dev.wirespeed.lab.result.Unit;
import dev.wirespeed.lab.tls.SelfSigned;
import dev.wirespeed.lab.tls.TlsOptions;
import dev.wirespeed.tls.Pem;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Hostile peers: each {@link Attack} against the library's echo on its event loop (over the JDK's
 * {@code Selector}, epoll and io_uring, with the library's defaults for a hostile network) and against
 * Netty's echo, side by side. Each run starts the server afresh on one CPU and then, with the load on
 * the other:
 *
 * <ol>
 *   <li>the honest load, the lab's C generator ({@code many load}: {@value #HONEST_CONNECTIONS}
 *       connections, {@value #WINDOW} frames of {@value #SIZE} bytes in flight on each, every echo
 *       checked), warm-up rounds and then measured rounds of a fixed count of frames;
 *   <li>a first attack ({@link Attacker}) of a {@value #FIRST_PART}th as many connections as the
 *       second, in place, then a round trip on a new connection (which the server accepts after the
 *       hostile ones), then the server's memory: its live heap, its resident memory ({@code VmRSS}) once it
 *       stops changing, and the hostile connections it holds;
 *   <li>the second attack, of the same kind, opened and in place beside the first, then a round trip,
 *       then the same readings;
 *   <li>the same honest load again (one warm-up round), both attacks still in place;
 *   <li>the attacks closed, then whether the server's process is alive and serves one round trip on a
 *       new connection.
 * </ol>
 *
 * <p>The TLS attacks run against the same servers started with {@code --tls} on one engine (the JDK's,
 * then OpenSSL: the library's through FFM, Netty's BoringSSL), a self-signed certificate made for the
 * run; their honest load is the library's client loop over TLS ({@code wirespeed load --tls}) on the
 * same engine, since the C generator speaks no TLS.
 *
 * <p>Memory per hostile connection is the growth of the resident memory and the live heap from the
 * first reading to the second, over the growth of the hostile connections the server holds (see {@link
 * #perHeld}); the honest rate kept is the median of the rounds under the attack over the median of the
 * rounds without it, every run's rounds together.
 */
public final class HostileExperiment implements Experiment<HostileCase, HostileResult> {
    /** The experiment's name on the command line. */
    static final String NAME = "hostile";
    /** Body bytes per frame of the honest load. */
    static final int SIZE = 100;
    /** Frames in flight per honest connection. */
    static final int WINDOW = 16;
    /** The honest load's connections. */
    static final int HONEST_CONNECTIONS = 4;
    /** The least share of its rate the honest load keeps under an attack: the target. */
    static final double KEPT_TARGET = 0.9;
    /** Resident memory is counted in pages: a growth per connection below one page over the connections is none seen. */
    static final int PAGE = 4096;
    /** The first attack has a {@value}th of the second's connections, at least one. */
    static final int FIRST_PART = 10;
    /** How long a round trip on a new connection may take before the server counts as not serving. */
    static final Duration ROUND_TRIP_TIMEOUT = Duration.ofSeconds(5);

    /**
     * How much each mode measures.
     *
     * @param hostile hostile connections of every attack but {@link Attack#NO_READ}
     * @param noReaders connections of {@link Attack#NO_READ}, each sending up to {@value Attacker#NO_READ_LIMIT} bytes
     * @param runs runs per case, each a fresh server
     * @param warmupRounds rounds the honest load sends before the rounds it measures, alone and under attack
     *     alike: so that the server's JIT is as warm for those alone as for those under attack, which come
     *     later, and the TLS load's own JVM, new each time, as warm under attack as alone
     * @param rounds measured rounds of each honest load, after its warm-up round
     * @param framesPerConnection frames each honest connection sends a round
     */
    record Settings(int hostile, int noReaders, int runs, int warmupRounds, int rounds, long framesPerConnection) {
        /** {@return the hostile connections of {@code attack}} */
        int connections(Attack attack) {
            return attack == Attack.NO_READ ? noReaders : hostile;
        }

        /** {@return the connections of the first attack of {@code attack}, in place before the first reading} */
        int first(Attack attack) {
            return Math.max(1, connections(attack) / FIRST_PART);
        }
    }

    /** An experiment. */
    public HostileExperiment() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "hostile peers: an announced 16 MiB frame never sent, a frame dripped a byte a second, idle connections, "
                + "and a peer that never reads, against the library's event loop (Selector, epoll, io_uring) and "
                + "Netty's echo: memory per hostile connection held, the honest load's rate kept, and whether each still serves";
    }

    /** A deep dive of ours, not an article's: it runs when named, or with {@code --full}. */
    @Override
    public boolean inDefaultRun() {
        return false;
    }

    static Settings settings(LabContext lab) {
        return switch (lab.mode()) {
            case QUICK -> new Settings(50, 4, 1, 1, 2, 5_000);
            // Rounds of a quarter to half a second: shorter ones, a tenth of a second, spread by a fifth
            // between rounds alone on this kind of shared machine, and so judged noise against 0.9x.
            case DEFAULT -> new Settings(500, 32, 3, 3, 4, 150_000);
            case FULL -> new Settings(500, 32, 5, 4, 6, 300_000);
        };
    }

    /** {@return where the server and the load run: on different CPUs where the machine has two} */
    static Placement placement(LabContext lab) {
        return lab.placements().stream().filter(p -> p.kind() != Placement.Kind.SAME_CORE).findFirst()
                .orElse(Placement.UNPINNED);
    }

    @Override
    public List<HostileCase> cases(LabContext lab) throws IOException, InterruptedException {
        if (lab.program(CPrograms.Program.MANY).isEmpty()) {
            lab.note("hostile: skipped, its honest load is the C generator of many.c and there is no C compiler");
            return List.of();
        }
        List<HostileCase> cases = new ArrayList<>();
        for (HostileServer server : HostileServer.values()) {
            if (server.unavailable() != null) {
                lab.note("hostile: " + server.label() + " skipped: " + server.unavailable());
            }
        }
        List<Tls> engines = new ArrayList<>(List.of(Tls.JDK));
        if (!dev.wirespeed.linux.tls.OpenSsl.isAvailable()) {
            lab.note("hostile over TLS: the OpenSSL rows skipped: " + dev.wirespeed.linux.tls.OpenSsl.unavailableReason());
        } else if (!io.netty.handler.ssl.OpenSsl.isAvailable()) {
            lab.note("hostile over TLS: the OpenSSL rows skipped: Netty's OpenSSL did not load: "
                    + io.netty.handler.ssl.OpenSsl.unavailabilityCause());
        } else {
            engines.add(Tls.OPENSSL);
        }
        for (Attack attack : Attack.values()) {
            for (Tls tls : attack.tls() ? engines : List.of(Tls.NONE)) {
                for (HostileServer server : HostileServer.values()) {
                    if (server.unavailable() == null) {
                        cases.add(new HostileCase(server, attack, tls));
                    }
                }
            }
        }
        return cases;
    }

    @Override
    public int steps(HostileCase kase, LabContext lab) {
        return settings(lab).runs();
    }

    @Override
    public CaseRunner<HostileCase, HostileResult> open(LabContext lab) throws IOException, InterruptedException {
        Path many = lab.program(CPrograms.Program.MANY).orElseThrow(
                () -> new IOException("many.c is not compiled: the lab has no C compiler"));
        Placement placement = placement(lab);
        Settings settings = settings(lab);
        return new CaseRunner<>() {
            private Process server;
            /** The TLS cases' identity and a client context trusting it, made at the first of them. */
            private SelfSigned identity;
            private SSLContext trusting;

            @Override
            public HostileResult run(HostileCase kase) throws IOException, InterruptedException {
                int connections = settings.connections(kase.attack());
                if (kase.tls() != Tls.NONE && identity == null) {
                    identity = SelfSigned.create(Files.createTempDirectory("wirespeed-hostile-tls"));
                    trusting = trusting(identity.certificate());
                }
                SSLContext tls = kase.tls() == Tls.NONE ? null : trusting;
                int first = settings.first(kase.attack());
                List<Double> before = new ArrayList<>();
                List<Double> with = new ArrayList<>();
                List<Double> heldBefore = new ArrayList<>();
                List<Double> heldWith = new ArrayList<>();
                List<Double> perHeld = new ArrayList<>();
                List<Double> alone = new ArrayList<>();
                List<Double> underAttack = new ArrayList<>();
                int alive = 0;
                int served = 0;
                for (int run = 1; run <= settings.runs(); run++) {
                    lab.progress(String.format(Locale.ROOT, "hostile: %s, %,d + %,d connections, against %s, run %d/%d",
                            kase.attackLabel(), first, connections, kase.server().label(), run, settings.runs()));
                    server = lab.jvm().start(placement.serverCpu(), "echo-hostile-" + kase.server().name()
                            .toLowerCase(Locale.ROOT) + (tls == null ? "" : "-tls"), SERVER_OPTIONS, echoArgs(kase));
                    try {
                        InetSocketAddress address = new InetSocketAddress("127.0.0.1",
                                Integer.parseInt(Children.awaitListening(server, null)));
                        String what = "the honest load against " + kase.server().label();
                        alone.addAll(honest(address, kase.tls(), what, settings.warmupRounds()));
                        Reading atFirst;
                        Reading atBoth;
                        // Memory per hostile connection is a slope between two readings, each with an attack in
                        // place, rather than the growth from no attack at all: the attack's first connections bring
                        // one-off growth (the JIT's code for their paths, C heap and libcrypto pages and metaspace
                        // touched for the first time) that a division over the connections would count as theirs.
                        // A throwaway attack, opened and closed before the first reading, would bring that growth
                        // too, but leave what it freed resident for the measured attack to reuse, counting too
                        // little: so the first attack stays in place. It is smaller than the library's cap on TLS
                        // handshakes in progress (maxHandshakes, 256 by default), so that a capped server holds all
                        // of it. The connections held are counted at each reading, not assumed: past its cap the
                        // library's server resets its oldest handshake, and a handshake timeout closes the rest.
                        try (Attacker firstAttack = Attacker.open(kase.attack(), address, first, placement.clientCpu(),
                                tls)) {
                            atFirst = reading(firstAttack, null, address, tls);
                            try (Attacker attacker = Attacker.open(kase.attack(), address, connections,
                                    placement.clientCpu(), tls)) {
                                atBoth = reading(firstAttack, attacker, address, tls);
                                try {
                                    // As many warm-up rounds as alone: over TLS the load is a new JVM, cold each time.
                                    underAttack.addAll(honest(address, kase.tls(), what + " under attack",
                                            settings.warmupRounds()));
                                } catch (IOException e) {
                                    lab.note("hostile: " + e.getMessage());
                                    underAttack.add(0.0);
                                }
                            }
                        }
                        before.add((double) atFirst.rssKib());
                        with.add((double) atBoth.rssKib());
                        heldBefore.add((double) atFirst.held());
                        heldWith.add((double) atBoth.held());
                        perHeld.add(perHeld(atFirst.rssKib() + atFirst.heapKib(), atBoth.rssKib() + atBoth.heapKib(),
                                atFirst.held(), atBoth.held()));
                        boolean servedAfter = roundTrip(address, tls);
                        if (server.isAlive()) {
                            alive++;
                            served += servedAfter ? 1 : 0;
                        }
                    } finally {
                        Children.stop(server);
                        server = null;
                        lab.stepDone();
                    }
                }
                return new HostileResult(first, connections, Stats.of(heldBefore), Stats.of(heldWith),
                        Stats.of(before), Stats.of(with), Stats.of(perHeld), Stats.of(alone), Stats.of(underAttack),
                        settings.runs(), alive, served);
            }

            /**
             * {@return the server's memory and the hostile connections it holds, once {@code attackers} are in
             * place}: a round trip on a new connection first, which the server accepts after theirs; then the
             * live heap, the resident memory once it settles, and, last, the connections held, so that one a
             * handshake timeout closes during the reading counts as not held
             *
             * @param first the first attacker
             * @param more a second attacker, or null
             * @param address the server
             * @param tls a client context for a server on TLS, else null
             */
            private Reading reading(Attacker first, Attacker more, InetSocketAddress address, SSLContext tls)
                    throws IOException, InterruptedException {
                for (Attacker a : more == null ? List.of(first) : List.of(first, more)) {
                    a.awaitInPlace(Duration.ofMillis(200), Duration.ofSeconds(10));
                }
                roundTrip(address, tls);
                long heap = Jvm.liveHeapKib(server.pid());
                long rss = settledResidentKib(server);
                return new Reading(rss, heap, first.held() + (more == null ? 0 : more.held()));
            }

            private List<String> echoArgs(HostileCase kase) {
                Args args = kase.server().echo().on(Args.of(EchoCommand.OPTIONS).with(EchoCommand.TRANSPORT, Transport.TCP)
                        .with(ListenOptions.PORT, 0).with(ListenOptions.BIND, "127.0.0.1"));
                if (kase.tls() != Tls.NONE) {
                    args = args.with(TlsOptions.TLS).with(TlsOptions.CERT, identity.certificate())
                            .with(TlsOptions.KEY, identity.key()).with(TlsOptions.ENGINE, kase.tls().cliName());
                }
                return args.toArgs();
            }

            /**
             * {@return the measured rounds' frames a second of one honest load}: its first round, and {@code
             * warmup} more before it, warm the server up and are not measured. In plaintext the C generator;
             * over TLS the library's client loop over epoll ({@code wirespeed load --tls}), on the server's engine.
             */
            private List<Double> honest(InetSocketAddress address, Tls tls, String what, int warmup)
                    throws IOException, InterruptedException {
                String host = address.getAddress().getHostAddress();
                String port = String.valueOf(address.getPort());
                String roundCount = String.valueOf(warmup + 1 + settings.rounds());
                List<String> command;
                if (tls == Tls.NONE) {
                    command = Children.pinned(placement.clientCpu(), List.of(many.toString(), "load", host, port,
                            String.valueOf(HONEST_CONNECTIONS), String.valueOf(settings.framesPerConnection()),
                            String.valueOf(WINDOW), String.valueOf(SIZE), roundCount));
                } else {
                    command = lab.jvm().command(placement.clientCpu(), "load-hostile-tls-" + tls.cliName(),
                            Args.of(LoadCommand.OPTIONS).with(ConnectOptions.HOST, host)
                                    .with(ConnectOptions.PORT, address.getPort())
                                    .with(LoadCommand.CONNECTIONS, HONEST_CONNECTIONS)
                                    .with(LoadCommand.FRAMES, settings.framesPerConnection())
                                    .with(LoadCommand.WINDOW, WINDOW).with(LoadCommand.SIZE, SIZE)
                                    .with(LoadCommand.ROUNDS, warmup + 1 + settings.rounds())
                                    .with(LoadCommand.IMPL, LoopImpl.NATIVE).with(TlsOptions.TLS)
                                    .with(TlsOptions.TRUST, identity.certificate())
                                    .with(TlsOptions.ENGINE, tls.cliName()).toArgs());
                }
                Process load = new ProcessBuilder(command).start();
                CompletableFuture<String> err = Children.drainLater(load.getErrorStream());
                List<Double> rounds = new ArrayList<>();
                try (BufferedReader out = new BufferedReader(new InputStreamReader(load.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line = out.readLine(); line != null; line = out.readLine()) {
                        ChildReport.Load round = (ChildReport.Load) ChildReports.read(line);
                        if (round.round() > 1 + warmup) {
                            rounds.add(round.framesPerSecond());
                        }
                    }
                } catch (IOException | ClassCastException e) {
                    Children.stop(load);
                    throw new IOException(what + " printed what is not a round: " + e.getMessage() + " | "
                            + err.join(), e);
                }
                if (!load.waitFor(2, TimeUnit.MINUTES) || load.exitValue() != 0) {
                    Children.stop(load);
                    throw new IOException(what + " failed (exit " + load.exitValue() + "): " + err.join());
                }
                if (rounds.isEmpty()) {
                    throw new IOException(what + " reported no measured round");
                }
                return rounds;
            }

            @Override
            public void close() throws IOException {
                Children.stop(server);
                server = null;
                if (identity != null) {
                    Files.deleteIfExists(identity.certificate());
                    Files.deleteIfExists(identity.key());
                    Files.deleteIfExists(identity.certificate().getParent());
                    identity = null;
                }
            }
        };
    }

    /**
     * {@return a process's resident KiB once two readings {@value #SETTLE_MILLIS} ms apart agree}, or the
     * last reading after 3 s: the server has taken in what the attack sent
     */
    private static long settledResidentKib(Process process) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        long last = Children.residentKib(process);
        while (System.nanoTime() < deadline) {
            Thread.sleep(SETTLE_MILLIS);
            long now = Children.residentKib(process);
            if (now == last) {
                return now;
            }
            last = now;
        }
        return last;
    }

    /**
     * The servers' JVM options: a heap of a fixed size, every page of it touched at the start, so that
     * the resident memory grows by what lies outside the heap (the sockets', the pools', a native
     * engine's), not by the pages a collector touches for the first time (garbage, which a server that
     * makes little of has touched less of before the attack); what the heap keeps is read apart, as its
     * live objects after a full collection. Direct memory up to 4 GiB, which a fixed heap would otherwise cap
     * at its own size.
     */
    static final List<String> SERVER_OPTIONS = List.of("-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch",
            "-XX:MaxDirectMemorySize=4g");

    /** The time between two readings of {@link #settledResidentKib}. */
    static final long SETTLE_MILLIS = 200;

    /**
     * One reading of a server's memory with hostile connections in place.
     *
     * @param rssKib its resident KiB
     * @param heapKib its live heap's KiB after a full collection
     * @param held the hostile connections it held
     */
    record Reading(long rssKib, long heapKib, int held) {
    }

    /**
     * {@return the memory per hostile connection held, in bytes}: the growth from the first reading to the
     * second over the growth of the connections the server held, floored at one page over them, the least
     * growth {@code VmRSS} shows, so that a server that grew by nothing (or shrank, as a collector returns
     * pages) counts as the finest figure the measurement gives. A server that held no more at the second
     * reading than at the first counts as holding one more.
     *
     * <p>Over the connections held, not those opened: a server closes or resets some (the library resets
     * its oldest TLS handshake past {@code maxHandshakes}, and a handshake timeout closes them all), and
     * what it no longer holds costs it nothing; over those opened, a server that holds half of them would
     * read as costing half as much for each it holds. Servers that hold different numbers are compared
     * each per connection it holds, and the tables show how many.
     *
     * @param beforeKib KiB at the first reading
     * @param withKib KiB at the second
     * @param heldBefore hostile connections held at the first reading, {@code >= 0}
     * @param heldWith hostile connections held at the second, {@code >= 0}
     */
    static double perHeld(long beforeKib, long withKib, int heldBefore, int heldWith) {
        int held = Math.max(1, heldWith - heldBefore);
        return Math.max((withKib - beforeKib) * 1024.0 / held, (double) PAGE / held);
    }

    /** {@return a TLS client context that trusts the certificates of a PEM file} */
    private static SSLContext trusting(Path certificate) throws IOException {
        try {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int i = 0;
            for (X509Certificate cert : Pem.certificates(certificate)) {
                store.setCertificateEntry("server-" + i++, cert);
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IOException("no TLS client context trusting " + certificate + ": " + e.getMessage(), e);
        }
    }

    /**
     * {@return whether a new connection to {@code address} gets one frame back unchanged} within {@link
     * #ROUND_TRIP_TIMEOUT} for the connect and as much again for the echo
     *
     * @param address the server
     * @param tls a client context for a server on TLS, else null
     */
    static boolean roundTrip(InetSocketAddress address, SSLContext tls) {
        int millis = (int) ROUND_TRIP_TIMEOUT.toMillis();
        byte[] frame = ByteBuffer.allocate(FrameFormat.HEADER_LENGTH + SIZE).putLong(FrameFormat.header(1, SIZE))
                .put(new byte[SIZE]).array();
        Arrays.fill(frame, FrameFormat.HEADER_LENGTH, frame.length, (byte) 0x5a);
        try (Socket socket = tls == null ? new Socket() : tls.getSocketFactory().createSocket()) {
            socket.connect(address, millis);
            socket.setSoTimeout(millis);
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            out.write(frame);
            out.flush();
            byte[] echo = new byte[frame.length];
            new DataInputStream(socket.getInputStream()).readFully(echo);
            return Arrays.equals(frame, echo);
        } catch (IOException e) {
            return false;
        }
    }

    private static Series series(HostileCase kase) {
        return new Series(NAME, kase.server().label() + ", " + kase.attackLabel(), kase.server().role(), Medium.TCP,
                SIZE);
    }

    @Override
    public List<Measurement> measurements(Results<HostileCase, HostileResult> results, LabContext lab) {
        Placement placement = placement(lab);
        List<Measurement> rows = new ArrayList<>();
        for (HostileCase kase : results.cases()) {
            HostileResult r = results.get(kase);
            Series series = series(kase);
            rows.add(series.at(placement, Unit.BYTES, r.bytesPerHeld()));
            rows.add(series.at(placement, Unit.CONNECTIONS, r.heldWith()));
            rows.add(series.at(placement, Unit.MSG_PER_S, r.underAttack()));
            rows.add(new Series(NAME, kase.server().label() + ", honest load alone, " + kase.attackLabel() + " runs",
                    kase.server().role(), Medium.TCP, SIZE).at(placement, Unit.MSG_PER_S, r.alone()));
        }
        return rows;
    }

    @Override
    public List<Table> tables(Results<HostileCase, HostileResult> results, LabContext lab) {
        return tables(results, settings(lab), placement(lab));
    }

    static List<Table> tables(Results<HostileCase, HostileResult> results, Settings settings, Placement placement) {
        List<List<String>> rows = new ArrayList<>();
        for (HostileCase kase : results.cases()) {
            HostileResult r = results.get(kase);
            rows.add(List.of(kase.attackLabel(), kase.server().label(), String.format(Locale.ROOT, "%,d + %,d",
                    r.first(), r.connections()), spread(r.heldBefore(), 1, "%,.0f"), spread(r.heldWith(), 1, "%,.0f"),
                    String.format(Locale.ROOT, "%,.1f", r.rssBeforeKib().median() / 1024),
                    String.format(Locale.ROOT, "%,.1f", r.rssWithKib().median() / 1024),
                    spread(r.bytesPerHeld(), 1.0 / 1024, "%,.2f"),
                    spread(r.alone(), 1, "%,.0f"), spread(r.underAttack(), 1, "%,.0f"),
                    String.format(Locale.ROOT, "%.2fx", r.kept()),
                    r.alive() + "/" + r.runs(), r.served() + "/" + r.runs()));
        }
        if (rows.isEmpty()) {
            return List.of();
        }
        return List.of(new Table(String.format(Locale.ROOT, "hostile: attacks on echo servers over TCP loopback, "
                + "beside an honest load of %d connections; median of %d run(s), each a fresh server, [min-max]; %s (%s)",
                HONEST_CONNECTIONS, settings.runs(), placement, placement.cpus()),
                List.of("attack", "server", "hostile conns", "held before", "held with", "RSS before MiB",
                        "RSS with MiB", "KiB per held conn",
                        "honest frames/s alone", "under attack", "kept", "alive", "served after"),
                rows, List.of(String.format(Locale.ROOT, "attacks, from the lab's JVM on the load's CPU: %s: %s; %s: "
                        + "%s; %s: %s; %s: %s, %,d connections, each at most %,d bytes; over TLS, %s: %s; %s: %s",
                        Attack.ANNOUNCED.label(), Attack.ANNOUNCED.what(), Attack.DRIP.label(), Attack.DRIP.what(),
                        Attack.FLOOD.label(), Attack.FLOOD.what(), Attack.NO_READ.label(), Attack.NO_READ.what(),
                        settings.noReaders(), Attacker.NO_READ_LIMIT, Attack.TLS_RECORD.label(),
                        Attack.TLS_RECORD.what(), Attack.TLS_HANDSHAKE.label(), Attack.TLS_HANDSHAKE.what()),
                        String.format(Locale.ROOT, "the honest load: the lab's C generator (many.c), %d connections, "
                                + "%d frames of %d bytes in flight on each, %,d frames a connection a round, every echo "
                                + "checked; frames/s: median of %d measured round(s) per run, every run's together, "
                                + "after %d warm-up round(s), alone and under attack alike; kept: the median under attack "
                                + "over the median alone; over TLS the load is the library's client loop over epoll "
                                + "('wirespeed load --tls') on the server's engine, trusting its self-signed EC P-256 "
                                + "certificate", HONEST_CONNECTIONS, WINDOW, SIZE,
                                settings.framesPerConnection(), settings.rounds(), settings.warmupRounds() + 1),
                        String.format(Locale.ROOT, "hostile conns: a first attack of a %dth, then the attack; before: "
                                + "the first in place, after the honest load alone; with: both in place, before the "
                                + "honest load under them; held: the hostile connections the server had neither closed "
                                + "nor reset (the attacker's end established, /proc/net/tcp): the library's server "
                                + "resets its oldest TLS handshake past its cap of those in progress (maxHandshakes), "
                                + "Netty's has none", FIRST_PART),
                        "RSS: the server process's VmRSS once two readings 200 ms apart agree, its heap a fixed 512 MiB "
                                + "touched at the start (" + String.join(" ", SERVER_OPTIONS) + "); per held "
                                + "connection: the growth of RSS and of the live heap (after a full collection, jcmd "
                                + "GC.run) from before to with, over the growth of the connections held, at least one "
                                + "4 KiB page over them",
                        "alive: the server's process was running after the attack closed; served after: it then "
                                + "echoed one frame on a new connection within " + ROUND_TRIP_TIMEOUT.toSeconds()
                                + " s")));
    }

    /** {@return the medians of the connections held at the two readings, as a finding names them} */
    private static String held(HostileResult r) {
        return String.format(Locale.ROOT, "held %,.0f, then %,.0f", r.heldBefore().median(), r.heldWith().median());
    }

    private static String spread(Stats s, double scale, String format) {
        String median = String.format(Locale.ROOT, format, s.median() * scale);
        return s.runs() == 1 || s.min() == s.max() ? median : median + String.format(Locale.ROOT, " [" + format + "-"
                + format + "]", s.min() * scale, s.max() * scale);
    }

    @Override
    public List<Finding> findings(Results<HostileCase, HostileResult> results, LabContext lab) {
        return findings(results, placement(lab));
    }

    /**
     * {@return the targets judged on {@code results}}: each where the cases it compares ran
     *
     * @param results every case's result
     * @param placement where the servers and the loads ran
     */
    static List<Finding> findings(Results<HostileCase, HostileResult> results, Placement placement) {
        List<Check> serves = new ArrayList<>();
        List<Check> kept = new ArrayList<>();
        List<Check> memory = new ArrayList<>();
        for (HostileCase kase : results.cases(k -> k.server() != HostileServer.NETTY)) {
            HostileResult r = results.get(kase);
            String where = String.format(Locale.ROOT, "%s, %s, %,d + %,d connections, %s", NAME, kase.attackLabel(),
                    r.first(), r.connections(), placement);
            String label = kase.server().label();
            serves.add(new Check(where, new Figure(label + " runs alive and serving after it",
                    Stats.exact((double) Math.min(r.alive(), r.served()) / r.runs()), Unit.RATIO),
                    new Figure("every run", Stats.exact(1), Unit.RATIO)));
            kept.add(new Check(where, new Figure(label + " honest load under attack", r.underAttack(), Unit.MSG_PER_S),
                    new Figure("alone", r.alone(), Unit.MSG_PER_S)));
            HostileCase netty = new HostileCase(HostileServer.NETTY, kase.attack(), kase.tls());
            if (results.has(netty)) {
                HostileResult n = results.get(netty);
                memory.add(new Check(where, new Figure(label + " per hostile connection held (" + held(r) + ")",
                        r.bytesPerHeld(), Unit.BYTES), new Figure(HostileServer.NETTY.label() + " (" + held(n) + ")",
                                n.bytesPerHeld(), Unit.BYTES)));
            }
        }
        List<Finding> findings = new ArrayList<>();
        if (!serves.isEmpty()) {
            findings.add(Finding.target(NAME, "after every attack the library's echo is alive and serves a new "
                    + "connection's round trip, on every transport of its loop", Rule.atLeast(1.0), serves));
            findings.add(Finding.target(NAME, "honest connections keep at least 0.9x their frames a second while "
                    + "an attack is in place, on every transport of the library's loop", Rule.atLeast(KEPT_TARGET),
                    kept));
        }
        if (!memory.isEmpty()) {
            findings.add(Finding.target(NAME, "a hostile connection it holds costs the library's echo at most the "
                    + "memory one costs Netty's, under the same attack", Rule.atMost(1.0), memory));
        }
        return findings;
    }
}
