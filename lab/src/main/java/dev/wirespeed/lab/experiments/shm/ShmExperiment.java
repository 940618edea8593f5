package dev.wirespeed.lab.experiments.shm;

import dev.wirespeed.lab.env.CPrograms;
import dev.wirespeed.lab.experiment.CaseRunner;
import dev.wirespeed.lab.experiment.Experiment;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.experiments.latency.Distribution;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Measurement;
import dev.wirespeed.lab.result.Percentile;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Series;
import dev.wirespeed.lab.result.SetAside;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Table;
import dev.wirespeed.lab.result.Unit;
import dev.wirespeed.linux.NativeSocket;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Frames through shared memory between two processes (issue 48): the library's {@code SharedRing} beside
 * the C ring of the same layout ({@code shmring.c}), Agrona's {@code OneToOneRingBuffer} over a mapped file
 * and Aeron's IPC channel with an embedded media driver, at every placement. Five parts: a ping-pong of
 * {@value #SIZE}-byte bodies closed loop, and open loop at {@value #OPEN_LOOP_RATE} frames a second
 * (coordinated omission corrected); a stream of {@value #SIZE}-byte frames from a writer that wakes nobody
 * to a reader that spins, rings of {@value #CAPACITY} bytes, beside the library's busy-polling reader of a
 * Unix domain socket; the same stream from each of {@link #WRITERS} writer processes into one many-to-one ring
 * (the library's {@code ManyToOneRing} beside the C ring of its layout, Agrona's {@code ManyToOneRingBuffer}
 * and Aeron's concurrent publications), the reader checking each writer's frames in order; and the library's
 * parked reader (the futex) after {@value #IDLE_MILLIS} ms idle periods, its wake-up and its CPU while idle,
 * beside the C ring's reader taking the same steps and the kernel's bare futex wake-up between two C
 * processes. Each part's peers are measured in turn, run after
 * run (see {@link ShmRuns}); a row is the median over runs, with min and max. {@link ShmFindings} judges
 * the targets.
 */
public final class ShmExperiment implements Experiment<ShmCell, ShmResult> {
    /** Body bytes per frame. */
    static final int SIZE = 100;
    /**
     * Frames a second of the open-loop rows: a tenth or less of what every peer answers closed loop on one
     * core here, so that the rows show the tail at a steady load, not a queue.
     */
    static final int OPEN_LOOP_RATE = 50_000;
    /** Bytes of each stream ring (Aeron's term is its driver's default). */
    static final int CAPACITY = 1 << 20;
    /** The idle period before each frame of the idle part. */
    static final int IDLE_MILLIS = 1_000;
    /** Frames the idle part's writer sends at once first, to warm its reader up. */
    static final int BURST = 20_000;
    /**
     * The writers' processes of the many-writer stream's cells: every writer runs on the placement's writer CPU,
     * so on two cores they take turns on one while the reader has the other.
     */
    static final List<Integer> WRITERS = List.of(2, 4);

    /** Creates the experiment. */
    public ShmExperiment() {
    }

    @Override
    public String name() {
        return "shm";
    }

    @Override
    public String description() {
        return "ours (issue 48): frames through shared memory, the library's SharedRing beside the C ring of the "
                + "same layout, Agrona's OneToOneRingBuffer and Aeron IPC: ping-pong closed and open loop, a stream "
                + "of 100-byte frames, the stream from 2 and 4 writers into one ManyToOneRing (beside Agrona's "
                + "ManyToOneRingBuffer and Aeron IPC), and a parked reader's wake-up and idle CPU beside the C ring's "
                + "and the kernel's futex wake-up";
    }

    /** A deep dive of ours, as {@code idle}: it runs when named, or with {@code --full}. */
    @Override
    public boolean inDefaultRun() {
        return false;
    }

    @Override
    public List<ShmCell> cases(LabContext lab) throws IOException, InterruptedException {
        if (!NativeSocket.isSupported()) {
            lab.note("shm: the shared ring's futex needs Linux on a 64-bit JVM: the experiment is skipped");
            return List.of();
        }
        lab.program(CPrograms.Program.SHMRING); // compiled now, or noted as missing before the run starts
        List<ShmCell> cells = new ArrayList<>();
        for (Placement placement : lab.placements()) {
            for (Part part : Part.values()) {
                if (part == Part.MANY_STREAM) {
                    WRITERS.forEach(writers -> cells.add(new ShmCell(placement, part, writers)));
                } else {
                    cells.add(new ShmCell(placement, part));
                }
            }
        }
        return cells;
    }

    @Override
    public int steps(ShmCell cell, LabContext lab) {
        return lab.mode().runs() * cell.part().peers(true).size();
    }

    /**
     * {@return round trips measured per ping-pong run}: enough by default for p99.99 to be judged
     *
     * @param lab the run's context, whose mode decides
     */
    static long count(LabContext lab) {
        return switch (lab.mode()) {
            case QUICK -> 2_000;
            case DEFAULT -> 100_000;
            case FULL -> 200_000;
        };
    }

    /**
     * {@return round trips before a ping-pong run measures}: outside quick mode enough for C2 to compile
     * both ends' loops
     *
     * @param lab the run's context, whose mode decides
     */
    static long warmup(LabContext lab) {
        return switch (lab.mode()) {
            case QUICK -> 1_000;
            case DEFAULT -> 50_000;
            case FULL -> 100_000;
        };
    }

    /** {@return frames per round of a stream reader} */
    static long roundFrames(LabContext lab) {
        return switch (lab.mode()) {
            case QUICK -> 100_000;
            case DEFAULT -> 1_000_000;
            case FULL -> 2_000_000;
        };
    }

    /** {@return rounds of a stream reader, the first a warm-up} */
    static long rounds(LabContext lab) {
        return lab.mode().measuredRounds() + 1;
    }

    /**
     * {@return frames the idle part's writer sends each after 1 ms of idle after its burst, uncounted}: the reader
     * falls asleep and is woken this many times first, so that the JIT has compiled the code of a wake-up in both
     * processes (a path the burst never takes; without it the first wake-ups run deoptimized code), as in a
     * program that has run a while. The C ring takes the same steps.
     */
    static long warmWakes(LabContext lab) {
        return lab.mode() == Mode.QUICK ? 200 : 2_000;
    }

    /** {@return wake-ups counted per idle run} */
    static long wakes(LabContext lab) {
        return switch (lab.mode()) {
            case QUICK -> 2;
            case DEFAULT -> 5;
            case FULL -> 10;
        };
    }

    @Override
    public CaseRunner<ShmCell, ShmResult> open(LabContext lab) throws IOException, InterruptedException {
        Path shmring = lab.program(CPrograms.Program.SHMRING).orElse(null);
        return new ShmRuns(lab, shmring);
    }

    @Override
    public List<Measurement> measurements(Results<ShmCell, ShmResult> results, LabContext lab) {
        List<Measurement> rows = new ArrayList<>();
        for (ShmCell cell : results.cases()) {
            Placement at = cell.placement();
            for (Peer peer : cell.part().peers(true)) {
                Series series = new Series(name(), cell.row(peer), peer.role(), peer.medium(), SIZE);
                switch (results.get(cell)) {
                    case ShmResult.Latencies l when l.byPeer().containsKey(peer) -> {
                        for (Percentile p : Percentile.values()) {
                            rows.add(series.at(at, Unit.MICROSECONDS, l.byPeer().get(peer).get(p)).percentile(p));
                        }
                    }
                    case ShmResult.Rates r when r.byPeer().containsKey(peer) -> {
                        rows.add(series.at(at, Unit.MSG_PER_S, r.byPeer().get(peer).msgPerSec()));
                        rows.add(series.at(at, Unit.CPU_NS_PER_MSG, r.byPeer().get(peer).cpuNsPerMsg()));
                    }
                    case ShmResult.Wakeups w when w.byPeer().containsKey(peer) -> {
                        ShmResult.Wakeup wake = w.byPeer().get(peer);
                        rows.add(series.at(at, Unit.MICROSECONDS, wake.p50()).percentile(Percentile.P50));
                        rows.add(series.at(at, Unit.MICROSECONDS, wake.max()).percentile(Percentile.MAX));
                        rows.add(series.at(at, Unit.CORE_PERCENT, percent(wake.cpuShare())));
                    }
                    default -> {
                        // the peer is not in this part, or did not run (no C program)
                    }
                }
            }
        }
        return rows;
    }

    @Override
    public List<Table> tables(Results<ShmCell, ShmResult> results, LabContext lab) {
        List<Table> tables = new ArrayList<>();
        for (Placement placement : results.cases().stream().map(ShmCell::placement).distinct().toList()) {
            String where = placement + " (" + placement.cpus() + ")";
            List<List<String>> latency = new ArrayList<>();
            for (Part part : List.of(Part.CLOSED_LOOP, Part.OPEN_LOOP)) {
                ShmCell cell = new ShmCell(placement, part);
                if (results.has(cell) && results.get(cell) instanceof ShmResult.Latencies l) {
                    for (Peer peer : Peer.values()) {
                        if (l.byPeer().containsKey(peer)) {
                            latency.add(latencyLine(part.row(peer), l.byPeer().get(peer)));
                        }
                    }
                }
            }
            if (!latency.isEmpty()) {
                List<String> header = new ArrayList<>(List.of("case"));
                for (Percentile p : Percentile.values()) {
                    header.add(p.label() + (p == Percentile.P50 ? " [min-max]" : ""));
                }
                tables.add(new Table(String.format(Locale.ROOT, "shm: round trips through shared memory, %d-byte "
                        + "bodies, %,d measured after %,d warm-up, microseconds, median of %d run(s); %s", SIZE,
                        count(lab), warmup(lab), lab.mode().runs(), where), header, latency, List.of(
                                Percentile.tailNote(count(lab)),
                                String.format(Locale.ROOT, "open loop: frame i is due at i / %,d s and its round trip "
                                        + "counts from then (coordinated omission corrected)", OPEN_LOOP_RATE),
                                "both ends spin (yielding the CPU every 8th empty look) and publish with the release "
                                        + "store alone, waking nobody; rings of 64 KiB, Aeron's terms its driver's "
                                        + "default; each run a fresh echo and ping per peer, the peers in turn, the "
                                        + "order reversed every other run")));
            }
            ShmCell stream = new ShmCell(placement, Part.STREAM);
            if (results.has(stream) && results.get(stream) instanceof ShmResult.Rates r) {
                List<List<String>> lines = new ArrayList<>();
                for (Peer peer : Peer.values()) {
                    if (r.byPeer().containsKey(peer)) {
                        lines.add(rateLine(Part.STREAM.row(peer), r.byPeer().get(peer)));
                    }
                }
                tables.add(new Table(String.format(Locale.ROOT, "shm: a stream of %d-byte frames, a writer that wakes "
                        + "nobody to a spinning reader that checks every frame, median of %d round(s) of %,d frames "
                        + "after one warm-up round, over %d run(s); %s", SIZE, lab.mode().measuredRounds(),
                        roundFrames(lab), lab.mode().runs(), where), List.of("case", "msg/s [min-max]", "MB/s",
                        "reader CPU ns/msg"), lines, List.of(String.format(Locale.ROOT, "rings of %,d bytes, Aeron's "
                        + "term its driver's default; MB/s counts the 8-byte header of each frame", CAPACITY),
                        String.format(Locale.ROOT, "the Unix socket: the stream experiments' Java server (batching "
                        + "512 KiB writes) read by 'client --strategy wirespeed-spin --verify' in their timed rounds, "
                        + "%d of %d ms after a warm-up", lab.mode().measuredRounds(), lab.mode().roundMillis()))));
            }
            List<List<String>> many = new ArrayList<>();
            for (int writers : WRITERS) {
                ShmCell cell = new ShmCell(placement, Part.MANY_STREAM, writers);
                if (results.has(cell) && results.get(cell) instanceof ShmResult.Rates r) {
                    for (Peer peer : Peer.values()) {
                        if (r.byPeer().containsKey(peer)) {
                            many.add(rateLine(cell.row(peer), r.byPeer().get(peer)));
                        }
                    }
                }
            }
            if (!many.isEmpty()) {
                tables.add(new Table(String.format(Locale.ROOT, "shm: %d-byte frames from several writer processes "
                        + "into one ring, writers that wake nobody to a spinning reader that checks each writer's "
                        + "frames in order, median of %d round(s) of %,d frames in total after one warm-up round, over "
                        + "%d run(s); %s", SIZE, lab.mode().measuredRounds(), roundFrames(lab), lab.mode().runs(),
                        where), List.of("case", "msg/s [min-max]", "MB/s", "reader CPU ns/msg"), many, List.of(
                                String.format(Locale.ROOT, "every writer on the writers' CPU, the reader on its own: "
                                + "%s; rings of %,d bytes, Aeron's term its driver's default, the reader's process "
                                + "owning the ring (and Aeron's driver)", placement.cpus(), CAPACITY),
                                "a frame: its writer's number as its type, its index in that writer's stream in its "
                                + "first 8 bytes, then the sequence stream's bytes; the rounds count from the first "
                                + "frame after every writer's first")));
            }
            ShmCell idle = new ShmCell(placement, Part.IDLE);
            if (results.has(idle) && results.get(idle) instanceof ShmResult.Wakeups w) {
                List<List<String>> lines = new ArrayList<>();
                for (Peer peer : Peer.values()) {
                    if (w.byPeer().containsKey(peer)) {
                        ShmResult.Wakeup wake = w.byPeer().get(peer);
                        lines.add(List.of(Part.IDLE.row(peer), String.format(Locale.ROOT, "%,.1f [%,.1f-%,.1f]",
                                wake.p50().median(), wake.p50().min(), wake.p50().max()), String.format(Locale.ROOT,
                                "%,.1f", wake.max().median()), String.format(Locale.ROOT, "%.3f%%",
                                100 * wake.cpuShare().median())));
                    }
                }
                tables.add(new Table(String.format(Locale.ROOT, "shm: the first frame after %,d ms idle, %d wake-up(s) "
                        + "a run, median of %d run(s); %s", IDLE_MILLIS, wakes(lab), lab.mode().runs(), where),
                        List.of("case", "wake-up p50 us [min-max]", "max us", "CPU while idle, of a core"), lines,
                        List.of("wake-up: from the writer's clock at its send (the C probe: the waker's store to the "
                                + "word) to the reader holding the frame; the reader parks on the ring's futex after "
                                + "1,000 empty looks, 100 ms a sleep at most, the C ring's as the library's; the C "
                                + "probe has no ring: one process asleep in FUTEX_WAIT, the other calling FUTEX_WAKE",
                                "CPU while idle: the reader's process (every thread) over the "
                                + "idle periods' wall time; the C ring's reader and the C probe's sleeper likewise")));
            }
        }
        return tables;
    }

    /** {@return a share of a core in percent of one} */
    static Stats percent(Stats cores) {
        return new Stats(100 * cores.median(), 100 * cores.min(), 100 * cores.max(), cores.runs());
    }

    private static List<String> rateLine(String name, ShmResult.Rate rate) {
        Stats msg = rate.msgPerSec();
        return List.of(name, String.format(Locale.ROOT, "%,.0f [%,.0f-%,.0f]", msg.median(), msg.min(), msg.max()),
                String.format(Locale.ROOT, "%,.1f", msg.median() * (SIZE + 8) / 1e6), String.format(Locale.ROOT,
                "%.1f", rate.cpuNsPerMsg().median()));
    }

    private static List<String> latencyLine(String name, Distribution d) {
        List<String> line = new ArrayList<>(List.of(name));
        for (Percentile p : Percentile.values()) {
            Stats s = d.get(p);
            line.add(p == Percentile.P50 ? String.format(Locale.ROOT, "%,.2f [%,.2f-%,.2f]", s.median(), s.min(),
                    s.max()) : String.format(Locale.ROOT, "%,.2f", s.median()));
        }
        return line;
    }

    @Override
    public List<Finding> findings(Results<ShmCell, ShmResult> results, LabContext lab) {
        return new ShmFindings(name(), results).judge(lab, count(lab));
    }

    /** {@inheritDoc} Here: the figures of {@link ShmSetAside}, of the kinds the targets compare. */
    @Override
    public List<SetAside> setAside(Results<ShmCell, ShmResult> results, LabContext lab) {
        return ShmSetAside.all(name(), results, count(lab));
    }
}
