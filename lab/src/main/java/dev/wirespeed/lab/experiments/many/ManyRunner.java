package dev.wirespeed.lab.experiments.many;

import static dev.wirespeed.lab.experiments.many.ManyExperiment.*;

import dev.wirespeed.lab.Transport;
import dev.wirespeed.lab.cli.Args;
import dev.wirespeed.lab.cli.ConnectOptions;
import dev.wirespeed.lab.cli.EchoCommand;
import dev.wirespeed.lab.cli.ListenOptions;
import dev.wirespeed.lab.cli.LoadCommand;
import dev.wirespeed.lab.env.Children;
import dev.wirespeed.lab.env.VethLink;
import dev.wirespeed.lab.experiment.CaseRunner;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.ChildReports;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.tls.SelfSigned;
import dev.wirespeed.lab.tls.TlsOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * Runs the cases of {@link ManyExperiment}: starts the server each case needs (afresh for an idle or a
 * handshake case, or when the server, the link or TLS changes), drives the load from the other CPU,
 * samples the server's CPU time and memory from {@code /proc}, and stops what it started at the end.
 */
final class ManyRunner implements CaseRunner<ManyCase, ManyResult> {
    private final LabContext lab;
    /** The compiled load generator and C echo server. */
    private final Path many;
    private final Placement placement;
    private final Settings settings;
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
            if (s.echo() == null) {
                command = Children.pinned(placement.serverCpu(), List.of(many.toString(), "echo", address, "0"));
            } else {
                Args args = s.echo().on(Args.of(EchoCommand.OPTIONS).with(EchoCommand.TRANSPORT, Transport.TCP)
                        .with(ListenOptions.PORT, 0).with(ListenOptions.BIND, address));
                if (tls) {
                    args = args.with(TlsOptions.TLS).with(TlsOptions.CERT, identity.certificate())
                            .with(TlsOptions.KEY, identity.key()).with(TlsOptions.ENGINE, runningOpenssl ? "openssl" : "jdk");
                }
                command = lab.jvm().command(placement.serverCpu(), "echo-many-" + s.name().toLowerCase(Locale.ROOT),
                        args.toArgs());
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
            if (load.impl() == null) {
                command = Children.pinned(placement.clientCpu(), List.of(many.toString(), "load", address, port,
                        String.valueOf(connections), perConnection, String.valueOf(WINDOW), String.valueOf(SIZE),
                        String.valueOf(settings.rounds()), String.valueOf(slowReaders)));
            } else {
                Args args = Args.of(LoadCommand.OPTIONS).with(ConnectOptions.HOST, address)
                        .with(ConnectOptions.PORT, Integer.valueOf(port)).with(LoadCommand.CONNECTIONS, connections)
                        .with(LoadCommand.FRAMES, settings.framesPerConnection(connections))
                        .with(LoadCommand.WINDOW, WINDOW).with(LoadCommand.SIZE, SIZE)
                        .with(LoadCommand.ROUNDS, settings.rounds()).with(LoadCommand.IMPL, load.impl());
                if (runningTls) {
                    args = args.with(TlsOptions.TLS).with(TlsOptions.TRUST, identity.certificate())
                            .with(TlsOptions.ENGINE, runningOpenssl ? "openssl" : "jdk");
                }
                command = lab.jvm().command(placement.clientCpu(), "load-" + load.name().toLowerCase(Locale.ROOT)
                        + (runningTls ? "-tls" : ""), args.toArgs());
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
                    serverCpu = CpuTime.of(server.pid());
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

    ManyRunner(LabContext lab, Path many, Placement placement, Settings settings) {
        this.lab = lab;
        this.many = many;
        this.placement = placement;
        this.settings = settings;
    }

    private static Stats stats(List<ChildReport.Load> rounds, Function<ChildReport.Load, Double> figure) {
        return Stats.of(rounds.stream().map(figure).toList());
    }

}
