package dev.wirespeed.lab.experiment;

import dev.wirespeed.lab.client.Strategies;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
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
 * The first article ("On the benefits of stream buffering in Java", 2015) on this machine: a server
 * streams 100-byte frames over TCP loopback as fast as it can, in large batched writes, and each
 * client strategy reads them; per placement, each strategy is run several times, each run's figure
 * is the median of its rounds after the first (JIT warm-up), and the table shows the median of the
 * runs with min and max beside the article's figure.
 */
final class TcpExperiment {
    static final String NAME = "tcp";
    private static final int SIZE = 100;
    private static final Pattern LISTENING = Pattern.compile("listening on [^:]+:(\\d+)");
    private static final Pattern ROUND = Pattern.compile(
            "\\{\"round\":(\\d+),\"messages\":\\d+,\"bytes\":\\d+,\"ms\":\\d+,\"msgPerSec\":(\\d+),"
                    + "\"mbPerSec\":([\\d.]+),\"cpuNsPerMsg\":([\\d.]+)}");

    /** The article's figures, MB/s and msg/s: loopback where it measured loopback, else its 10 Gbit run. */
    record Published(double mbPerSec, double msgPerSec, String where) {
    }

    static final Map<Strategies, Published> PUBLISHED = new LinkedHashMap<>();

    static {
        PUBLISHED.put(Strategies.UNBUFFERED, new Published(32.9, 304_850, "loopback"));
        PUBLISHED.put(Strategies.READINT, new Published(63.7, 589_866, "10G"));
        PUBLISHED.put(Strategies.BUFFERED, new Published(398.2, 3_687_315, "10G"));
        PUBLISHED.put(Strategies.BUFFERED_READINT, new Published(520.2, 4_816_955, "loopback"));
        PUBLISHED.put(Strategies.NO_ALLOC, new Published(507.0, 4_694_835, "10G"));
        PUBLISHED.put(Strategies.CHANNEL, new Published(1529.7, 14_164_305, "loopback"));
        PUBLISHED.put(Strategies.CHANNEL_COMPACT, new Published(1728.0, 16_000_000, "loopback"));
        PUBLISHED.put(Strategies.ZERO_COPY, new Published(2147.1, 19_880_715, "loopback"));
    }

    /** A strategy's figures at one placement: MB/s, msg/s and the reading thread's CPU ns per message. */
    record Cell(Stats mb, Stats msg, Stats cpu) {
    }

    private final LabRun lab;

    TcpExperiment(LabRun lab) {
        this.lab = lab;
    }

    /** Frames per round, sized so a round lasts about a second on a 2-core VM. */
    private long messages(Strategies strategy) {
        long base = switch (strategy) {
            case UNBUFFERED -> 500_000;
            case READINT -> 1_000_000;
            case BUFFERED, BUFFERED_READINT, NO_ALLOC -> 5_000_000;
            default -> 10_000_000;
        };
        return base / lab.mode.messageDivisor;
    }

    void run() throws IOException, InterruptedException {
        List<Placement> placements = Placement.available(lab.notes);
        Map<Placement, Map<Strategies, Cell>> results = new LinkedHashMap<>();
        lab.addSteps(placements.size() * Strategies.values().length * lab.mode.runs);
        for (Placement placement : placements) {
            Map<Strategies, Cell> byStrategy = new LinkedHashMap<>();
            results.put(placement, byStrategy);
            Process server = Jvm.start(placement.serverCpu(), List.of("server", "--transport", "tcp", "--port", "0",
                    "--size", String.valueOf(SIZE)));
            try {
                int port = listeningPort(server);
                for (Strategies strategy : Strategies.values()) {
                    List<Double> mb = new ArrayList<>();
                    List<Double> msg = new ArrayList<>();
                    List<Double> cpu = new ArrayList<>();
                    for (int run = 1; run <= lab.mode.runs; run++) {
                        lab.progress("tcp " + placement.name() + ": " + strategy + " run " + run + "/" + lab.mode.runs);
                        double[] figures = runClient(placement, port, strategy);
                        mb.add(figures[0]);
                        msg.add(figures[1]);
                        cpu.add(figures[2]);
                        lab.stepDone();
                    }
                    Cell cell = new Cell(Stats.of(mb), Stats.of(msg), Stats.of(cpu));
                    byStrategy.put(strategy, cell);
                    Published published = PUBLISHED.get(strategy);
                    boolean ours = strategy == Strategies.WIRESPEED || strategy == Strategies.WIRESPEED_SPIN;
                    lab.rows.add(new Row(NAME, strategy.cliName(), "tcp", placement.name(), "MB/s", cell.mb(), SIZE,
                            published == null ? Double.NaN : published.mbPerSec(), ours, false, false));
                    lab.rows.add(new Row(NAME, strategy.cliName(), "tcp", placement.name(), "msg/s", cell.msg(), SIZE,
                            published == null ? Double.NaN : published.msgPerSec(), ours, false, false));
                    lab.rows.add(new Row(NAME, strategy.cliName(), "tcp", placement.name(), "cpu ns/msg", cell.cpu(),
                            SIZE, Double.NaN, ours, false, false));
                }
            } finally {
                server.destroyForcibly().waitFor();
            }
        }
        lab.clearProgress();
        printTable(results);
        for (Placement placement : placements) {
            addFindings(placement, results.get(placement));
        }
    }

    private static int listeningPort(Process server) throws IOException {
        BufferedReader err = new BufferedReader(new InputStreamReader(server.getErrorStream(), StandardCharsets.UTF_8));
        String line = err.readLine();
        Matcher matcher = LISTENING.matcher(String.valueOf(line));
        if (!matcher.find()) {
            throw new IOException("the server did not start: it said " + line);
        }
        return Integer.parseInt(matcher.group(1));
    }

    /** One client process; returns its median MB/s, msg/s and CPU ns/msg over the rounds after the first. */
    private double[] runClient(Placement placement, int port, Strategies strategy) throws IOException, InterruptedException {
        List<String> args = List.of("client", "--transport", "tcp", "--port", String.valueOf(port), "--strategy",
                strategy.cliName(), "--messages", String.valueOf(messages(strategy)), "--rounds",
                String.valueOf(lab.mode.rounds), "--json");
        Process client = Jvm.start(placement.clientCpu(), args);
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> drain(client.getErrorStream()));
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
            throw new IOException("client " + strategy + " did not finish in 5 minutes");
        }
        if (client.exitValue() != 0 || mb.isEmpty()) {
            throw new IOException("client " + strategy + " failed (exit " + client.exitValue() + "): " + err.join());
        }
        return new double[] {Stats.of(mb).median(), Stats.of(msg).median(), Stats.of(cpu).median()};
    }

    private static String drain(java.io.InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return "(stderr unreadable: " + e.getMessage() + ")";
        }
    }

    private void printTable(Map<Placement, Map<Strategies, Cell>> results) {
        var out = lab.out;
        out.println();
        out.printf(Locale.ROOT, "tcp: TCP loopback, %d-byte bodies, server batching 512 KiB writes; median of %d run(s) "
                + "[min-max], each the median of %d rounds after a warm-up round%n", SIZE, lab.mode.runs,
                lab.mode.rounds - 1);
        StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-18s", "strategy"));
        for (Placement placement : results.keySet()) {
            header.append(String.format(Locale.ROOT, " | %-49s", placement.name() + " (" + placement.cpus() + ")"));
        }
        header.append(" | article");
        out.println(header);
        StringBuilder units = new StringBuilder(String.format(Locale.ROOT, "%-18s", ""));
        for (int i = 0; i < results.size(); i++) {
            units.append(String.format(Locale.ROOT, " | %12s %25s %10s", "msg/s", "MB/s [min-max]", "CPU ns/msg"));
        }
        units.append(" | MB/s (msg/s)");
        out.println(units);
        for (Strategies strategy : Strategies.values()) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-18s", strategy.cliName()));
            for (Map<Strategies, Cell> byStrategy : results.values()) {
                Cell cell = byStrategy.get(strategy);
                line.append(String.format(Locale.ROOT, " | %,12.0f %8.1f [%6.1f-%6.1f] %10.1f", cell.msg().median(),
                        cell.mb().median(), cell.mb().min(), cell.mb().max(), cell.cpu().median()));
            }
            Published published = PUBLISHED.get(strategy);
            line.append(published == null ? " | -" : String.format(Locale.ROOT, " | %.1f (%,.0f) %s",
                    published.mbPerSec(), published.msgPerSec(), published.where()));
            out.println(line);
        }
        out.flush();
    }

    private void addFindings(Placement placement, Map<Strategies, Cell> mb) {
        String where = " (" + placement.name() + ")";
        ratio(where, "buffering speeds the unbuffered client up many times (buffered-readint / unbuffered >= 5x)",
                mb, Strategies.BUFFERED_READINT, Strategies.UNBUFFERED, 5.0, 520.2 / 32.9);
        ratio(where, "removing allocation does not speed the stream client up (no-alloc / buffered-readint <= 1.05x)",
                mb, Strategies.NO_ALLOC, Strategies.BUFFERED_READINT, -1.05, 507.0 / 572.9);
        ratio(where, "channels and direct buffers beat the best stream client (channel / buffered-readint >= 1.5x)",
                mb, Strategies.CHANNEL, Strategies.BUFFERED_READINT, 1.5, 1529.7 / 520.2);
        ratio(where, "compact-on-demand beats append-until-end (channel-compact / channel > 1x)",
                mb, Strategies.CHANNEL_COMPACT, Strategies.CHANNEL, 1.0, 1728.0 / 1529.7);
        ratio(where, "zero-copy beats copying the body (zero-copy / channel-compact > 1x)",
                mb, Strategies.ZERO_COPY, Strategies.CHANNEL_COMPACT, 1.0, 2147.1 / 1728.0);
        ratio(where, "zero-copy is several times no-alloc (zero-copy / no-alloc >= 2x)",
                mb, Strategies.ZERO_COPY, Strategies.NO_ALLOC, 2.0, 2147.1 / 507.0);
        ratio(where, "wirespeed's reader is at least as fast as the article's best (wirespeed / zero-copy >= 1x)",
                mb, Strategies.WIRESPEED, Strategies.ZERO_COPY, 1.0, Double.NaN);
        ratio(where, "wirespeed busy-polling is at least as fast as the article's best (wirespeed-spin / zero-copy >= 1x)",
                mb, Strategies.WIRESPEED_SPIN, Strategies.ZERO_COPY, 1.0, Double.NaN);
        Stats ours = mb.get(Strategies.WIRESPEED).cpu();
        Stats theirs = mb.get(Strategies.ZERO_COPY).cpu();
        lab.findings.add(new Finding("wirespeed's reader spends less CPU per message than zero-copy" + where,
                ours.median() < theirs.median(), String.format(Locale.ROOT,
                        "wirespeed %.1f ns/msg [%.1f-%.1f] vs zero-copy %.1f ns/msg [%.1f-%.1f] = %.2fx",
                        ours.median(), ours.min(), ours.max(), theirs.median(), theirs.min(), theirs.max(),
                        ours.median() / theirs.median())));
    }

    /**
     * Adds a finding on the ratio of two strategies' median MB/s. A positive {@code threshold} must be
     * reached (>=, or > for 1.0); a negative one is a ceiling the ratio must stay under.
     */
    private void ratio(String where, String claim, Map<Strategies, Cell> results, Strategies a, Strategies b,
            double threshold, double published) {
        Stats sa = results.get(a).mb();
        Stats sb = results.get(b).mb();
        double ratio = sa.median() / sb.median();
        boolean holds = threshold < 0 ? ratio <= -threshold : threshold == 1.0 ? ratio > 1.0 : ratio >= threshold;
        String figures = String.format(Locale.ROOT, "%s %.1f MB/s [%.1f-%.1f] / %s %.1f MB/s [%.1f-%.1f] = %.2fx%s",
                a, sa.median(), sa.min(), sa.max(), b, sb.median(), sb.min(), sb.max(), ratio,
                Double.isNaN(published) ? "" : String.format(Locale.ROOT, "; article %.2fx", published));
        lab.findings.add(new Finding(claim + where, holds, figures));
    }
}
