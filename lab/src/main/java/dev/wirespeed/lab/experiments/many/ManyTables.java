package dev.wirespeed.lab.experiments.many;

import static dev.wirespeed.lab.experiments.many.ManyExperiment.*;

import dev.wirespeed.lab.env.VethLink;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The tables of {@link ManyExperiment}: the loads, the generators, TLS, memory, the slow reader, across a link. */
final class ManyTables {
    private ManyTables() {
    }

    /** {@return the experiment's tables of {@code results}} */
    static List<Table> of(Results<ManyCase, ManyResult> results, LabContext lab) {
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
}
