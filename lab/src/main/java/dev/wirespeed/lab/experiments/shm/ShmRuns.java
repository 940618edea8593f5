package dev.wirespeed.lab.experiments.shm;

import dev.wirespeed.lab.Listening;
import dev.wirespeed.lab.Transport;
import dev.wirespeed.lab.cli.Args;
import dev.wirespeed.lab.cli.ClientCommand;
import dev.wirespeed.lab.cli.ConnectOptions;
import dev.wirespeed.lab.cli.ListenOptions;
import dev.wirespeed.lab.cli.RingEchoCommand;
import dev.wirespeed.lab.cli.RingPingCommand;
import dev.wirespeed.lab.cli.RingReadCommand;
import dev.wirespeed.lab.cli.RingWriteCommand;
import dev.wirespeed.lab.cli.ServerCommand;
import dev.wirespeed.lab.client.Strategies;
import dev.wirespeed.lab.env.Children;
import dev.wirespeed.lab.experiment.CaseRunner;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiments.latency.Distribution;
import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.server.SizeRange;
import dev.wirespeed.lab.shm.Layout;
import dev.wirespeed.lab.shm.Sleep;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs the cells of the {@code shm} experiment: each run of a cell measures every peer of its part once,
 * in table order, the order reversed every other run, each with processes of its own (a ping-pong's echo
 * serves one ping) whose files lie in a folder of this runner's under {@code /dev/shm}, removed when it
 * closes. The owning end (echo, writer, the futex probe's waker, the socket's server) runs on the
 * placement's server CPU, the other on its client CPU; in the many-writer stream every writer runs on the
 * server CPU and the reader, which owns that ring, on the client CPU.
 *
 * <p>Thread safety: used by the lab's one thread.
 */
final class ShmRuns implements CaseRunner<ShmCell, ShmResult> {
    /** How long an owning end may take to leave once the other end has left. */
    private static final long LEAVE_SECONDS = 15;
    private final LabContext lab;
    private final Path shmring;
    private final Path dir;
    private int made;

    /**
     * A runner whose files lie in a new folder under {@code /dev/shm} (or the temporary folder without one).
     *
     * @param lab the run's context
     * @param shmring the C program, or null where it could not be built: its rows are then not measured
     * @throws IOException if the folder cannot be made
     */
    ShmRuns(LabContext lab, Path shmring) throws IOException {
        this.lab = lab;
        this.shmring = shmring;
        Path shm = Path.of("/dev/shm");
        this.dir = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")),
                "wirespeed-shm-");
    }

    @Override
    public ShmResult run(ShmCell cell) throws IOException, InterruptedException {
        List<Peer> peers = cell.part().peers(shmring != null);
        Map<Peer, List<ChildReport>> reports = new EnumMap<>(Peer.class);
        int runs = lab.mode().runs();
        for (int run = 1; run <= runs; run++) {
            for (Peer peer : run % 2 == 1 ? peers : peers.reversed()) {
                lab.progress("shm " + cell.placement() + ": " + cell.row(peer) + " run " + run + "/" + runs);
                reports.computeIfAbsent(peer, p -> new ArrayList<>()).addAll(measure(cell, peer));
                lab.stepDone();
            }
        }
        return switch (cell.part()) {
            case CLOSED_LOOP, OPEN_LOOP -> latencies(reports);
            case STREAM, MANY_STREAM -> rates(reports);
            case IDLE -> wakeups(reports);
        };
    }

    private List<? extends ChildReport> measure(ShmCell cell, Peer peer) throws IOException, InterruptedException {
        Placement at = cell.placement();
        return switch (cell.part()) {
            case CLOSED_LOOP -> List.of(pingPong(at, peer, 0));
            case OPEN_LOOP -> List.of(pingPong(at, peer, ShmExperiment.OPEN_LOOP_RATE));
            case STREAM -> stream(at, peer);
            case MANY_STREAM -> manyStream(at, peer, cell.writers());
            case IDLE -> List.of(wakes(at, peer));
        };
    }

    private Path next(String what) {
        return dir.resolve(what + "-" + ++made);
    }

    private ChildReport.Latency pingPong(Placement at, Peer peer, int rate) throws IOException, InterruptedException {
        Path path = next("pingpong");
        String count = String.valueOf(ShmExperiment.count(lab));
        String warmup = String.valueOf(ShmExperiment.warmup(lab));
        String size = String.valueOf(ShmExperiment.SIZE);
        List<String> echo;
        List<String> ping;
        if (peer == Peer.C) {
            echo = Children.pinned(at.serverCpu(), List.of(shmring.toString(), "echo", path.toString(),
                    Sleep.SPIN.cliName()));
            ping = Children.pinned(at.clientCpu(), List.of(shmring.toString(), "ping", path.toString(), count, warmup,
                    size, String.valueOf(rate)));
        } else {
            String impl = peer.impl().cliName();
            echo = lab.jvm().command(at.serverCpu(), "ring-echo-" + impl, Args.of(RingEchoCommand.OPTIONS)
                    .with(RingEchoCommand.IMPL, peer.impl()).with(RingEchoCommand.PATH, path).toArgs());
            ping = lab.jvm().command(at.clientCpu(), "ring-ping-" + impl, Args.of(RingPingCommand.OPTIONS)
                    .with(RingPingCommand.IMPL, peer.impl()).with(RingPingCommand.PATH, path)
                    .with(RingPingCommand.COUNT, Long.valueOf(count)).with(RingPingCommand.WARMUP, Long.valueOf(warmup))
                    .with(RingPingCommand.SIZE, ShmExperiment.SIZE).with(RingPingCommand.RATE, rate)
                    .with(RingPingCommand.JSON).toArgs());
        }
        Process echoes = new ProcessBuilder(echo).start();
        try {
            CompletableFuture<String> said = Children.awaitLineThenDrain(echoes, Listening.PREFIX);
            try {
                return Children.latency(new ProcessBuilder(ping).start(), "ping of " + peer.label());
            } catch (IOException e) {
                boolean ended = echoes.waitFor(LEAVE_SECONDS, TimeUnit.SECONDS);
                throw new IOException(e.getMessage() + "; its echo " + (ended ? "exited " + echoes.exitValue() : "runs")
                        + ", having said: " + said.completeOnTimeout("(nothing it finished saying)", 5, TimeUnit.SECONDS)
                        .join(), e);
            }
        } finally {
            leave(echoes);
        }
    }

    private List<ChildReport.Round> stream(Placement at, Peer peer) throws IOException, InterruptedException {
        if (peer == Peer.UNIX) {
            return unixStream(at);
        }
        Path path = next("stream");
        String size = String.valueOf(ShmExperiment.SIZE);
        String messages = String.valueOf(ShmExperiment.roundFrames(lab));
        String rounds = String.valueOf(ShmExperiment.rounds(lab));
        List<String> write;
        List<String> read;
        if (peer == Peer.C) {
            write = Children.pinned(at.serverCpu(), List.of(shmring.toString(), "write", path.toString(),
                    String.valueOf(ShmExperiment.CAPACITY), "0", size, "none"));
            read = Children.pinned(at.clientCpu(), List.of(shmring.toString(), "read", path.toString(), messages,
                    rounds, Sleep.SPIN.cliName()));
        } else {
            String impl = peer.impl().cliName();
            write = lab.jvm().command(at.serverCpu(), "ring-write-" + impl, Args.of(RingWriteCommand.OPTIONS)
                    .with(RingWriteCommand.IMPL, peer.impl()).with(RingWriteCommand.PATH, path)
                    .with(RingWriteCommand.CAPACITY, ShmExperiment.CAPACITY)
                    .with(RingWriteCommand.SIZE, new SizeRange(ShmExperiment.SIZE, ShmExperiment.SIZE))
                    .with(RingWriteCommand.WAKE, "none").toArgs());
            read = lab.jvm().command(at.clientCpu(), "ring-read-" + impl, Args.of(RingReadCommand.OPTIONS)
                    .with(RingReadCommand.IMPL, peer.impl()).with(RingReadCommand.PATH, path)
                    .with(RingReadCommand.MESSAGES, Long.valueOf(messages)).with(RingReadCommand.ROUNDS, Long.valueOf(rounds))
                    .with(RingReadCommand.VERIFY).with(RingReadCommand.JSON).with(RingReadCommand.SLEEP, Sleep.SPIN)
                    .toArgs());
        }
        Process writer = new ProcessBuilder(write).start();
        try {
            Children.awaitLine(writer, "ring at ");
            return Children.measuredRounds(new ProcessBuilder(read).start(), "reader of " + peer.label());
        } finally {
            leave(writer);
        }
    }

    /**
     * The many-writer stream: the reader, which makes the ring, then each writer, which waits for it; the reader's
     * rounds once it has done them, the writers then leaving as the reader is gone.
     */
    private List<ChildReport.Round> manyStream(Placement at, Peer peer, int writers)
            throws IOException, InterruptedException {
        Path path = next("many");
        String size = String.valueOf(ShmExperiment.SIZE);
        String capacity = String.valueOf(ShmExperiment.CAPACITY);
        String messages = String.valueOf(ShmExperiment.roundFrames(lab));
        String rounds = String.valueOf(ShmExperiment.rounds(lab));
        List<String> read;
        List<List<String>> write = new ArrayList<>();
        if (peer == Peer.C) {
            read = Children.pinned(at.clientCpu(), List.of(shmring.toString(), "many-read", path.toString(), capacity,
                    String.valueOf(writers), messages, rounds));
            for (int w = 0; w < writers; w++) {
                write.add(Children.pinned(at.serverCpu(), List.of(shmring.toString(), "many-write", path.toString(),
                        String.valueOf(w), "0", size)));
            }
        } else {
            String impl = peer.impl().cliName();
            read = lab.jvm().command(at.clientCpu(), "ring-read-many-" + impl, Args.of(RingReadCommand.OPTIONS)
                    .with(RingReadCommand.IMPL, peer.impl()).with(RingReadCommand.LAYOUT, Layout.MANY_TO_ONE)
                    .with(RingReadCommand.WRITERS, writers).with(RingReadCommand.CAPACITY, ShmExperiment.CAPACITY)
                    .with(RingReadCommand.PATH, path).with(RingReadCommand.MESSAGES, Long.valueOf(messages))
                    .with(RingReadCommand.ROUNDS, Long.valueOf(rounds)).with(RingReadCommand.VERIFY)
                    .with(RingReadCommand.JSON).with(RingReadCommand.SLEEP, Sleep.SPIN).toArgs());
            for (int w = 0; w < writers; w++) {
                write.add(lab.jvm().command(at.serverCpu(), "ring-write-many-" + impl, Args.of(RingWriteCommand.OPTIONS)
                        .with(RingWriteCommand.IMPL, peer.impl()).with(RingWriteCommand.LAYOUT, Layout.MANY_TO_ONE)
                        .with(RingWriteCommand.WRITER, w).with(RingWriteCommand.PATH, path)
                        .with(RingWriteCommand.SIZE, new SizeRange(ShmExperiment.SIZE, ShmExperiment.SIZE))
                        .with(RingWriteCommand.WAKE, "none").toArgs()));
            }
        }
        Process reader = new ProcessBuilder(read).start();
        List<Process> started = new ArrayList<>();
        try {
            for (List<String> command : write) { // each waits for the reader's ring
                Process writer = new ProcessBuilder(command).redirectErrorStream(true).start();
                Children.drainLater(writer.getInputStream());
                started.add(writer);
            }
            return Children.measuredRounds(reader, "reader of " + Part.MANY_STREAM.row(peer) + ", " + writers
                    + " writers");
        } finally {
            Children.stop(reader); // gone already, unless a writer failed to start
            for (Process writer : started) {
                leave(writer);
            }
        }
    }

    /** The stream experiments' Java server and busy-polling client over a Unix socket, in their timed rounds. */
    private List<ChildReport.Round> unixStream(Placement at) throws IOException, InterruptedException {
        String path = next("unix").toString();
        Process server = lab.jvm().start(at.serverCpu(), "server", Args.of(ServerCommand.OPTIONS)
                .with(ServerCommand.TRANSPORT, Transport.UNIX).with(ListenOptions.PATH, Path.of(path))
                .with(ServerCommand.SIZE, new SizeRange(ShmExperiment.SIZE, ShmExperiment.SIZE)).toArgs());
        try {
            Children.awaitListening(server, path);
            Args args = lab.mode().inRounds(Args.of(ClientCommand.OPTIONS).with(ClientCommand.TRANSPORT, Transport.UNIX)
                    .with(ConnectOptions.PATH, Path.of(path)).with(ClientCommand.STRATEGY, Strategies.WIRESPEED_SPIN)
                    .with(ClientCommand.VERIFY).with(ClientCommand.JSON));
            return Children.measuredRounds(new ProcessBuilder(lab.jvm().command(at.clientCpu(), args.toArgs())).start(),
                    "client of " + Peer.UNIX.label());
        } finally {
            Children.stop(server); // it serves until stopped
        }
    }

    private ChildReport.Wakes wakes(Placement at, Peer peer) throws IOException, InterruptedException {
        String count = String.valueOf(ShmExperiment.wakes(lab) + 1); // the first is not counted
        String idle = String.valueOf(ShmExperiment.IDLE_MILLIS);
        if (peer == Peer.FUTEX) {
            return wakesOf(new ProcessBuilder(shmring.toString(), "futex", count, idle,
                    String.valueOf(at.serverCpu()), String.valueOf(at.clientCpu())).start(), "shmring futex");
        }
        Path path = next("idle");
        String capacity = String.valueOf(ShmExperiment.CAPACITY);
        String size = String.valueOf(ShmExperiment.SIZE);
        String burst = String.valueOf(ShmExperiment.BURST);
        String warm = String.valueOf(ShmExperiment.warmWakes(lab));
        List<String> write;
        List<String> read;
        if (peer == Peer.C) {
            write = Children.pinned(at.serverCpu(), List.of(shmring.toString(), "write-idle", path.toString(),
                    capacity, count, size, idle, burst, warm));
            read = Children.pinned(at.clientCpu(), List.of(shmring.toString(), "read-wakes", path.toString()));
        } else {
            String impl = peer.impl().cliName();
            write = lab.jvm().command(at.serverCpu(), "ring-write-" + impl, Args.of(RingWriteCommand.OPTIONS)
                    .with(RingWriteCommand.IMPL, peer.impl()).with(RingWriteCommand.PATH, path)
                    .with(RingWriteCommand.CAPACITY, ShmExperiment.CAPACITY)
                    .with(RingWriteCommand.SIZE, new SizeRange(ShmExperiment.SIZE, ShmExperiment.SIZE))
                    .with(RingWriteCommand.WAKE, "futex").with(RingWriteCommand.IDLE_MS, (long) ShmExperiment.IDLE_MILLIS)
                    .with(RingWriteCommand.COUNT, Long.valueOf(count)).with(RingWriteCommand.BURST, (long) ShmExperiment.BURST)
                    .with(RingWriteCommand.WARM_WAKES, ShmExperiment.warmWakes(lab)).toArgs());
            read = lab.jvm().command(at.clientCpu(), "ring-read-wakes-" + impl, Args.of(RingReadCommand.OPTIONS)
                    .with(RingReadCommand.IMPL, peer.impl()).with(RingReadCommand.PATH, path).with(RingReadCommand.WAKES)
                    .with(RingReadCommand.SLEEP, Sleep.FUTEX).toArgs());
        }
        Process writer = new ProcessBuilder(write).start();
        try {
            Children.awaitLine(writer, "ring at ");
            return wakesOf(new ProcessBuilder(read).start(), "the parked reader of " + peer.label());
        } finally {
            leave(writer);
        }
    }

    private static ChildReport.Wakes wakesOf(Process process, String what) throws IOException, InterruptedException {
        List<ChildReport> reports = Children.reports(process, what, 5);
        if (reports.size() != 1 || !(reports.getFirst() instanceof ChildReport.Wakes wakes)) {
            throw new IOException(what + " reported " + reports + ", expected one wake-ups line");
        }
        return wakes;
    }

    /** Lets an owning end leave by itself once the other has left (so that it removes what it made), else stops it. */
    private static void leave(Process owner) throws InterruptedException {
        if (!owner.waitFor(LEAVE_SECONDS, TimeUnit.SECONDS)) {
            Children.stop(owner);
        }
    }

    private static ShmResult latencies(Map<Peer, List<ChildReport>> reports) {
        Map<Peer, Distribution> byPeer = new EnumMap<>(Peer.class);
        reports.forEach((peer, runs) -> byPeer.put(peer, Distribution.of(runs.stream()
                .map(ChildReport.Latency.class::cast).toList())));
        return new ShmResult.Latencies(byPeer);
    }

    private static ShmResult rates(Map<Peer, List<ChildReport>> reports) throws IOException {
        Map<Peer, ShmResult.Rate> byPeer = new EnumMap<>(Peer.class);
        for (Map.Entry<Peer, List<ChildReport>> entry : reports.entrySet()) {
            List<ChildReport.Round> rounds = entry.getValue().stream().map(ChildReport.Round.class::cast).toList();
            List<Double> cpu = rounds.stream().map(ChildReport.Round::cpuNsPerMsg).filter(c -> c != null).toList();
            if (cpu.isEmpty()) {
                throw new IOException("the reader of " + entry.getKey().label() + " reported no CPU time in its "
                        + rounds.size() + " measured rounds: " + rounds);
            }
            byPeer.put(entry.getKey(), new ShmResult.Rate(Stats.of(rounds.stream()
                    .map(r -> (double) r.msgPerSec()).toList()), Stats.of(cpu)));
        }
        return new ShmResult.Rates(byPeer);
    }

    private static ShmResult wakeups(Map<Peer, List<ChildReport>> reports) {
        Map<Peer, ShmResult.Wakeup> byPeer = new EnumMap<>(Peer.class);
        reports.forEach((peer, runs) -> {
            List<ChildReport.Wakes> wakes = runs.stream().map(ChildReport.Wakes.class::cast).toList();
            byPeer.put(peer, new ShmResult.Wakeup(Stats.of(wakes.stream().map(ChildReport.Wakes::p50).toList()),
                    Stats.of(wakes.stream().map(ChildReport.Wakes::max).toList()),
                    Stats.of(wakes.stream().map(ChildReport.Wakes::cpuShare).toList())));
        });
        return new ShmResult.Wakeups(byPeer);
    }

    @Override
    public void close() throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }
}
