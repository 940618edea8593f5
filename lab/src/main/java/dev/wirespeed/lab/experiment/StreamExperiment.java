package dev.wirespeed.lab.experiment;

import dev.wirespeed.lab.client.Strategies;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The streaming experiments: a server streams 100-byte frames as fast as it can and each case reads
 * them, over TCP loopback ({@code tcp}, the first article), a Unix domain socket ({@code unix}) or a
 * pipe from the server's standard output to the client's standard input ({@code pipe}, the second
 * article). Cases are the client strategies, the C ceiling (a C writer and a C reader, blocking and
 * busy-polling) and {@code iperf3} where installed. Per placement each case runs several times; a
 * run's figure is the median of its rounds after the first (warm-up); a cell is the median of its
 * runs with min and max.
 */
final class StreamExperiment {
    private static final int SIZE = 100;
    /** The strategies also run against a server that writes each frame on its own (tcp). */
    static final List<Strategies> PER_FRAME = List.of(Strategies.UNBUFFERED, Strategies.ZERO_COPY, Strategies.WIRESPEED);
    /** The larger pipe of the pipe experiment's extra rows: Linux's default pipe-max-size. */
    static final int BIG_PIPE = 1 << 20;
    private static final Pattern LISTENING = Pattern.compile("listening on (?:[^:]+:(\\d+)|\\S+)");
    private static final Pattern ROUND = Pattern.compile("\\{\"round\":(\\d+),\"messages\":\\d+,\"bytes\":\\d+,"
            + "\"ms\":\\d+,\"msgPerSec\":(\\d+),\"mbPerSec\":([\\d.]+),\"cpuNsPerMsg\":([\\d.]+)}");

    /** Where the bytes travel. */
    enum Link {
        TCP, UNIX, PIPE;

        String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** One row of the table: how to read the stream. */
    sealed interface Case permits JavaCase, CeilingCase, IperfCase {
        String name();
    }

    /** Who writes the stream a Java client reads. */
    enum Writer {
        /** The Java server, batching frames into 512 KiB writes. */
        JAVA(""),
        /** The Java server writing each frame with its own call (the first article's "Note 1"). */
        JAVA_PER_FRAME(" (server writes per frame)"),
        /** The C writer: tells the reader's cost from the writer's. */
        C(" <- C writer");

        final String suffix;

        Writer(String suffix) {
            this.suffix = suffix;
        }
    }

    /** A client strategy reading a writer; {@code pipeSize} 0 leaves the pipe as it is. */
    record JavaCase(Strategies strategy, int pipeSize, Writer writer) implements Case {
        JavaCase(Strategies strategy, int pipeSize) {
            this(strategy, pipeSize, Writer.JAVA);
        }

        boolean cWriter() {
            return writer == Writer.C;
        }

        @Override
        public String name() {
            return strategy.cliName() + (pipeSize > 0 ? " (1 MiB pipe)" : "") + writer.suffix;
        }
    }

    /** The C writer and reader; {@code poll} busy-polls instead of blocking. */
    record CeilingCase(boolean poll, int pipeSize) implements Case {
        @Override
        public String name() {
            return "C read(2) " + (poll ? "busy-poll" : "blocking") + (pipeSize > 0 ? " (1 MiB pipe)" : "");
        }
    }

    /** {@code iperf3} over TCP: a ceiling in MB/s only. */
    record IperfCase() implements Case {
        @Override
        public String name() {
            return "iperf3";
        }
    }

    /** A case's figures at one placement: MB/s, msg/s and the reading thread's CPU ns per message. */
    record Cell(Stats mb, Stats msg, Stats cpu) {
    }

    private final LabRun lab;
    private final Link link;
    private final Path ceiling;

    StreamExperiment(LabRun lab, Link link, Path ceiling) {
        this.lab = lab;
        this.link = link;
        this.ceiling = ceiling;
    }

    /**
     * {@return whether the lab measures {@code strategy} on {@code link}}: the peers and the native
     * strategies on tcp only (the native ones are the fast-sockets article's TCP case; Unix sockets
     * would add a minute to the run), busy-polling not on a pipe (its ends are blocking files)
     */
    static boolean fits(Strategies strategy, Link link) {
        if (strategy == Strategies.NATIVE || strategy == Strategies.NATIVE_SPIN) {
            return link == Link.TCP && dev.wirespeed.linux.NativeSocket.isSupported();
        }
        if (strategy.peer()) {
            return link == Link.TCP;
        }
        return link != Link.PIPE || strategy != Strategies.WIRESPEED_SPIN;
    }

    List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        for (Strategies strategy : Strategies.values()) {
            if (fits(strategy, link)) {
                cases.add(new JavaCase(strategy, 0));
            }
        }
        if (link == Link.PIPE) {
            cases.add(new JavaCase(Strategies.WIRESPEED, BIG_PIPE));
        }
        if (link == Link.TCP) {
            for (Strategies strategy : PER_FRAME) {
                cases.add(new JavaCase(strategy, 0, Writer.JAVA_PER_FRAME));
            }
        }
        if (ceiling != null) {
            cases.add(new JavaCase(Strategies.WIRESPEED, 0, Writer.C));
            if (link != Link.PIPE) {
                cases.add(new JavaCase(Strategies.WIRESPEED_SPIN, 0, Writer.C));
            }
            cases.add(new CeilingCase(false, 0));
            cases.add(new CeilingCase(true, 0));
            if (link == Link.PIPE) {
                cases.add(new CeilingCase(false, BIG_PIPE));
            }
        }
        if (link == Link.TCP && Tools.has("iperf3")) {
            cases.add(new IperfCase());
        }
        return cases;
    }

    /** Frames per round, sized so a round lasts a fraction of a second on a 2-core VM. */
    private long messages(Case kase) {
        long base = switch (kase) {
            case JavaCase java when java.writer() == Writer.JAVA_PER_FRAME -> 150_000;
            case JavaCase java -> switch (java.strategy()) {
                case NETTY_NIO, NETTY_EPOLL -> 2_000_000;
                case UNBUFFERED -> 100_000;
                case READINT -> 200_000;
                case BUFFERED, BUFFERED_READINT, NO_ALLOC -> 1_500_000;
                default -> 5_000_000;
            };
            case CeilingCase c -> 5_000_000;
            case IperfCase i -> 0;
        };
        long perLink = link == Link.PIPE && !(kase instanceof JavaCase java && java.pipeSize() > 0)
                && !(kase instanceof CeilingCase c && c.pipeSize() > 0) ? base / 3 : base;
        return Math.max(1, perLink * lab.mode.messageMultiplier / 4);
    }

    /** {@return the client runs this experiment will make}, for the progress line's ETA */
    int steps() {
        return Placement.available(new ArrayList<>()).size() * cases().size() * lab.mode.runs;
    }

    void run() throws IOException, InterruptedException {
        List<Placement> placements = Placement.available(lab.notes);
        List<Case> cases = cases();
        Map<Placement, Map<Case, Cell>> results = new LinkedHashMap<>();
        for (Placement placement : placements) {
            Map<Case, Cell> byCase = new LinkedHashMap<>();
            results.put(placement, byCase);
            try (Servers servers = new Servers(placement)) {
                for (Case kase : cases) {
                    List<Double> mb = new ArrayList<>();
                    List<Double> msg = new ArrayList<>();
                    List<Double> cpu = new ArrayList<>();
                    for (int run = 1; run <= lab.mode.runs; run++) {
                        lab.progress(link.id() + " " + placement.name() + ": " + kase.name() + " run " + run + "/"
                                + lab.mode.runs);
                        double[] figures = runOnce(kase, placement, servers);
                        mb.add(figures[0]);
                        msg.add(figures[1]);
                        cpu.add(figures[2]);
                        lab.stepDone();
                    }
                    Cell cell = new Cell(Stats.of(mb), Stats.of(msg), Stats.of(cpu));
                    byCase.put(kase, cell);
                    addRows(kase, placement, cell);
                }
            }
        }
        lab.clearProgress();
        printTable(placements, cases, results);
        new StreamFindings(lab, link, results).add();
    }

    private void addRows(Case kase, Placement placement, Cell cell) {
        boolean ours = kase instanceof JavaCase java && !java.cWriter() && (java.strategy().cliName().startsWith("wirespeed")
                || java.strategy() == Strategies.NATIVE || java.strategy() == Strategies.NATIVE_SPIN);
        boolean isCeiling = !(kase instanceof JavaCase);
        boolean peer = kase instanceof JavaCase java && java.strategy().peer();
        double published = Published.mbPerSec(link, kase, placement);
        lab.rows.add(new Row(link.id(), kase.name(), link.id(), placement.name(), "MB/s", cell.mb(), SIZE, published,
                ours, isCeiling, peer));
        if (!Double.isNaN(cell.msg().median())) {
            lab.rows.add(new Row(link.id(), kase.name(), link.id(), placement.name(), "msg/s", cell.msg(), SIZE,
                    Double.NaN, ours, isCeiling, peer));
            lab.rows.add(new Row(link.id(), kase.name(), link.id(), placement.name(), "cpu ns/msg", cell.cpu(), SIZE,
                    Double.NaN, ours, isCeiling, peer));
        }
    }

    /** The long-running servers of one placement, started on first use. */
    private final class Servers implements AutoCloseable {
        private final Placement placement;
        private Process java;
        private Process javaPerFrame;
        private Process c;
        private String javaAddress;
        private String javaPerFrameAddress;
        private String cAddress;

        Servers(Placement placement) {
            this.placement = placement;
        }

        /** The Java server's port (tcp) or socket path (unix). */
        String java() throws IOException {
            if (java == null) {
                List<String> args = new ArrayList<>(List.of("server", "--transport", link.id(), "--size",
                        String.valueOf(SIZE)));
                args.addAll(link == Link.TCP ? List.of("--port", "0") : List.of("--path", socketPath("java")));
                java = Jvm.start(placement.serverCpu(), args);
                javaAddress = address(java, link == Link.UNIX ? socketPath("java") : null);
            }
            return javaAddress;
        }

        /** The port of the Java server that writes each frame on its own (tcp only). */
        String javaPerFrame() throws IOException {
            if (javaPerFrame == null) {
                javaPerFrame = Jvm.start(placement.serverCpu(), List.of("server", "--transport", "tcp", "--port", "0",
                        "--size", String.valueOf(SIZE), "--write-per-frame"));
                javaPerFrameAddress = address(javaPerFrame, null);
            }
            return javaPerFrameAddress;
        }

        /** The C server's port (tcp) or socket path (unix). */
        String c() throws IOException {
            if (c == null) {
                List<String> command = new ArrayList<>(List.of(ceiling.toString(), "write", link.id()));
                command.addAll(link == Link.TCP ? List.of("127.0.0.1", "0") : List.of(socketPath("c")));
                c = new ProcessBuilder(pinned(placement.serverCpu(), command)).start();
                cAddress = address(c, link == Link.UNIX ? socketPath("c") : null);
            }
            return cAddress;
        }

        @Override
        public void close() {
            for (Process process : new Process[] {java, javaPerFrame, c}) {
                if (process != null) {
                    process.destroyForcibly();
                    awaitExit(process);
                }
            }
        }
    }

    private static String socketPath(String who) {
        return Path.of(System.getProperty("java.io.tmpdir"), "wirespeed-lab-" + ProcessHandle.current().pid() + "-"
                + who + ".sock").toString();
    }

    /** Waits for "listening on ..." and returns the port, or {@code path} for a Unix socket. */
    static String address(Process server, String path) throws IOException {
        BufferedReader err = new BufferedReader(new InputStreamReader(server.getErrorStream(), StandardCharsets.UTF_8));
        String line = err.readLine();
        Matcher matcher = LISTENING.matcher(String.valueOf(line));
        if (!matcher.find()) {
            throw new IOException("the server did not start: it said " + line);
        }
        Thread.ofVirtual().start(() -> drain(server.getErrorStream()));
        return path != null ? path : matcher.group(1);
    }

    static List<String> pinned(int cpu, List<String> command) {
        List<String> all = new ArrayList<>();
        if (cpu >= 0) {
            all.addAll(List.of("taskset", "-c", String.valueOf(cpu)));
        }
        all.addAll(command);
        return all;
    }

    /** One run of one case; returns its median MB/s, msg/s and CPU ns/msg over the rounds after the first. */
    private double[] runOnce(Case kase, Placement placement, Servers servers) throws IOException, InterruptedException {
        if (kase instanceof IperfCase) {
            return Iperf.run(placement, lab.mode.iperfSeconds);
        }
        String messages = String.valueOf(messages(kase));
        String rounds = String.valueOf(lab.mode.rounds);
        List<String> reader;
        List<String> writer = null;
        switch (kase) {
            case JavaCase java -> {
                List<String> args = new ArrayList<>(List.of("client", "--strategy", java.strategy().cliName(),
                        "--messages", messages, "--rounds", rounds, "--json", "--transport"));
                switch (link) {
                    case TCP -> args.addAll(List.of("tcp", "--port", switch (java.writer()) {
                        case JAVA -> servers.java();
                        case JAVA_PER_FRAME -> servers.javaPerFrame();
                        case C -> servers.c();
                    }));
                    case UNIX -> args.addAll(List.of("unix", "--path", java.cWriter() ? servers.c() : servers.java()));
                    case PIPE -> args.add("stdin");
                }
                reader = Jvm.command(placement.clientCpu(), args);
                if (link == Link.PIPE && java.cWriter()) {
                    writer = pinned(placement.serverCpu(), List.of(ceiling.toString(), "write", "stdout"));
                } else if (link == Link.PIPE) {
                    List<String> server = new ArrayList<>(List.of("server", "--transport", "stdout", "--size",
                            String.valueOf(SIZE)));
                    if (java.pipeSize() > 0) {
                        server.addAll(List.of("--pipe-size", String.valueOf(java.pipeSize())));
                    }
                    writer = Jvm.command(placement.serverCpu(), server);
                }
            }
            case CeilingCase c -> {
                List<String> args = new ArrayList<>(List.of(ceiling.toString(), "read"));
                switch (link) {
                    case TCP -> args.addAll(List.of("tcp", "127.0.0.1", servers.c()));
                    case UNIX -> args.addAll(List.of("unix", servers.c()));
                    case PIPE -> args.add("stdin");
                }
                args.addAll(List.of(c.poll() ? "poll" : "block", messages, rounds));
                reader = pinned(placement.clientCpu(), args);
                if (link == Link.PIPE) {
                    writer = pinned(placement.serverCpu(), List.of(ceiling.toString(), "write", "stdout"));
                }
            }
            case IperfCase i -> throw new AssertionError("handled above");
        }
        Process client;
        Process server = null;
        if (writer == null) {
            client = new ProcessBuilder(reader).start();
        } else {
            ProcessBuilder write = new ProcessBuilder(writer).redirectError(ProcessBuilder.Redirect.DISCARD);
            if (kase instanceof CeilingCase c && c.pipeSize() > 0) {
                write.environment().put("CEILING_PIPE_SIZE", String.valueOf(c.pipeSize()));
            }
            List<Process> pipeline = ProcessBuilder.startPipeline(List.of(write, new ProcessBuilder(reader)));
            server = pipeline.get(0);
            client = pipeline.get(1);
        }
        try {
            return readRounds(kase, client);
        } finally {
            if (server != null) {
                server.destroyForcibly().waitFor();
            }
        }
    }

    private static double[] readRounds(Case kase, Process client) throws IOException, InterruptedException {
        CompletableFuture<String> err = drainLater(client.getErrorStream());
        List<Double> mb = new ArrayList<>();
        List<Double> msg = new ArrayList<>();
        List<Double> cpu = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                Matcher round = ROUND.matcher(line);
                if (round.matches() && Integer.parseInt(round.group(1)) > 1) {
                    msg.add(Double.parseDouble(round.group(2)));
                    mb.add(Double.parseDouble(round.group(3)));
                    cpu.add(Double.parseDouble(round.group(4)));
                }
            }
        }
        if (!client.waitFor(5, TimeUnit.MINUTES)) {
            client.destroyForcibly();
            throw new IOException(kase.name() + " did not finish in 5 minutes");
        }
        if (client.exitValue() != 0 || mb.isEmpty()) {
            throw new IOException(kase.name() + " failed (exit " + client.exitValue() + "): " + err.join());
        }
        return new double[] {Stats.of(mb).median(), Stats.of(msg).median(), Stats.of(cpu).median()};
    }

    /**
     * Reads a child's output to its end on a virtual thread of its own. Never on the common pool: on
     * two CPUs it has one thread, which a blocked read would hold forever.
     */
    static CompletableFuture<String> drainLater(java.io.InputStream in) {
        CompletableFuture<String> text = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> text.complete(drain(in)));
        return text;
    }

    /** Waits for a process that was told to stop. */
    static void awaitExit(Process process) {
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String drain(java.io.InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return "(stderr unreadable: " + e.getMessage() + ")";
        }
    }

    private void printTable(List<Placement> placements, List<Case> cases, Map<Placement, Map<Case, Cell>> results) {
        var out = lab.out;
        out.println();
        out.printf(Locale.ROOT, "%s: %s, %d-byte bodies, server batching 512 KiB writes; median of %d run(s) "
                + "[min-max], each from %d measured round(s) after a warm-up round%n", link.id(), switch (link) {
                    case TCP -> "TCP loopback";
                    case UNIX -> "Unix domain socket";
                    case PIPE -> "pipe (server stdout | client stdin), 64 KiB unless said";
                }, SIZE, lab.mode.runs, lab.mode.rounds - 1);
        StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-30s", "case"));
        StringBuilder units = new StringBuilder(String.format(Locale.ROOT, "%-30s", ""));
        for (Placement placement : placements) {
            header.append(String.format(Locale.ROOT, " | %-64s", placement.name() + " (" + placement.cpus() + ")"));
            units.append(String.format(Locale.ROOT, " | %11s %24s %7s %6s %9s", "msg/s", "MB/s [min-max]", "CPU ns",
                    "%ceil", "article"));
        }
        out.println(header);
        out.println(units);
        for (Case kase : cases) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-30s", kase.name()));
            for (Placement placement : placements) {
                Cell cell = results.get(placement).get(kase);
                double ceil = ceilingOf(results.get(placement));
                double published = Published.mbPerSec(link, kase, placement);
                line.append(String.format(Locale.ROOT, " | %11s %8.1f [%6.1f-%6.1f] %7s %5s%% %9s",
                        Double.isNaN(cell.msg().median()) ? "-" : String.format(Locale.ROOT, "%,.0f", cell.msg().median()),
                        cell.mb().median(), cell.mb().min(), cell.mb().max(),
                        Double.isNaN(cell.cpu().median()) ? "-" : String.format(Locale.ROOT, "%.1f", cell.cpu().median()),
                        Double.isNaN(ceil) ? "-" : String.format(Locale.ROOT, "%.0f", 100 * cell.mb().median() / ceil),
                        Double.isNaN(published) ? "-" : String.format(Locale.ROOT, "%.1f", published)));
            }
            out.println(line);
        }
        out.flush();
    }

    /**
     * {@return the ceiling of one placement}: the best median MB/s of the C and iperf3 rows measured
     * with the same pipe as the Java rows (the default pipe), or NaN where there are none
     */
    static double ceilingOf(Map<Case, Cell> cells) {
        double best = Double.NaN;
        for (Map.Entry<Case, Cell> entry : cells.entrySet()) {
            boolean sameLink = switch (entry.getKey()) {
                case CeilingCase c -> c.pipeSize() == 0;
                case IperfCase i -> true;
                case JavaCase j -> false;
            };
            if (sameLink && !(entry.getValue().mb().median() <= best)) {
                best = entry.getValue().mb().median();
            }
        }
        return best;
    }
}
