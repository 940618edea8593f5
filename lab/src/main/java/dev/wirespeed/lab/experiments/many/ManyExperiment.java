package dev.wirespeed.lab.experiments.many;

import dev.wirespeed.lab.env.CPrograms;
import dev.wirespeed.lab.env.VethLink;
import dev.wirespeed.lab.experiment.CaseRunner;
import dev.wirespeed.lab.experiment.Experiment;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Measurement;
import dev.wirespeed.lab.result.Medium;
import dev.wirespeed.lab.result.Percentile;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Role;
import dev.wirespeed.lab.result.Series;
import dev.wirespeed.lab.result.SetAside;
import dev.wirespeed.lab.result.Table;
import dev.wirespeed.lab.result.Unit;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Many connections on one server: echo servers (the C epoll ceiling, the library's event loop, a
 * thread per connection, platform or virtual, and Netty's epoll server) under the lab's C load
 * generator, which opens 1 to 1,000 TCP connections, keeps {@value #WINDOW} frames of {@value #SIZE}
 * body bytes in flight on each and checks every echo byte for byte; the same load from the library's
 * client loop ({@code wirespeed load}) against the C echo, beside the C generator's; the same load over TLS,
 * and full TLS handshakes a second ({@link ManyHandshakes}); then the server's
 * resident memory per idle connection, with thousands held open after one round trip each. The server runs on one CPU
 * and the load on the other, so that the load never limits the server.
 *
 * <p>A row whose rounds' rate spread wider than their median is set aside ({@link #setAside(ManyCase,
 * ManyResult, Placement)}), and a timed target that reads it is left out with a note.
 *
 * <p>This class says what is measured (the cases per mode) and how it is reported ({@link #measurements});
 * {@link ManyRunner} runs the cases, {@link ManyTables} and {@link ManyFindings} make the tables and judge
 * the targets, and {@link CpuTime} reads a process's CPU time from {@code /proc}.
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
        return new ManyRunner(lab, many, placement, settings);
    }

    private Series series(ManyCase kase) {
        return new Series(name(), row(kase), kase instanceof ManyCase.Driven ? Role.LIBRARY : kase.server().role(),
                Medium.TCP, SIZE);
    }

    /** {@return the row's name of {@code kase}, as its measurements name it} */
    static String row(ManyCase kase) {
        return switch (kase) {
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
    }

    /**
     * {@return {@code kase} set aside, or null where the lab trusts it}: a row whose rounds' rate (frames or
     * handshakes a second; beside a slow reader, either rate) spread wider than their median, as the latency
     * experiment's runs: the machine, not the server, made the figure, and every timed figure of the row
     * (its CPU per frame, its tail) was measured over the same rounds. An idle row's one figure has no rounds
     * to disagree; the memory targets read no row's set-aside status, as no clock shaped their figures.
     *
     * @param kase a case that ran
     * @param result its result
     * @param placement where the server and the load ran
     */
    static SetAside setAside(ManyCase kase, ManyResult result, Placement placement) {
        SetAside.Reason reason = switch (result) {
            case ManyResult.Load r -> SetAside.Reason.spread(r.framesPerSecond(), Unit.MSG_PER_S);
            case ManyResult.Slow r -> {
                SetAside.Reason beside = SetAside.Reason.spread(r.besideSlow(), Unit.MSG_PER_S);
                yield beside != null ? beside : SetAside.Reason.spread(r.alone(), Unit.MSG_PER_S);
            }
            case ManyResult.Handshakes r -> SetAside.Reason.spread(r.handshakesPerSecond(), Unit.HANDSHAKES_PER_S);
            case ManyResult.Idle r -> null;
        };
        return SetAside.of(NAME, row(kase), placement, null, reason);
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
        return ManyTables.of(results, lab);
    }

    @Override
    public List<Finding> findings(Results<ManyCase, ManyResult> results, LabContext lab) {
        return ManyFindings.judge(results, settings(lab), placement(lab), lab::note);
    }

    /** {@inheritDoc} Here: the rows of {@link #setAside(ManyCase, ManyResult, Placement)}. */
    @Override
    public List<SetAside> setAside(Results<ManyCase, ManyResult> results, LabContext lab) {
        List<SetAside> rows = new ArrayList<>();
        for (ManyCase kase : results.cases()) {
            SetAside row = setAside(kase, results.get(kase), placement(lab));
            if (row != null) {
                rows.add(row);
            }
        }
        return rows;
    }
}
