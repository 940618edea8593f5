package dev.wirespeed.lab.experiments.many;

import static dev.wirespeed.lab.experiments.many.ManyExperiment.*;

import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.result.Check;
import dev.wirespeed.lab.result.Figure;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Rule;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Unit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Supplier;

/** The targets {@link ManyExperiment} judges, each where the cases it compares ran. */
final class ManyFindings {
    private ManyFindings() {
    }

    /**
     * {@return the targets judged on {@code results}}: each where the cases it compares ran
     *
     * @param results every case's result
     * @param settings the run's mode's settings: the loads at the most connections are judged
     * @param placement where the server and the load ran
     * @param notes told of each target left out, as it reads a row set aside, and why
     */
    static List<Finding> judge(Results<ManyCase, ManyResult> results, Settings settings, Placement placement,
            Consumer<String> notes) {
        List<Finding> findings = new ArrayList<>();
        // A timed target reads rows, each perhaps set aside; not the memory targets, which no clock shaped.
        Supplier<ManyReads> target = () -> new ManyReads(results, placement, notes);
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
            ManyReads asFast = target.get();
            asFast.decide(findings, Finding.target(NAME, "the library's event loop echoes at least 0.9x the frames a "
                    + "second of the C epoll server", Rule.atLeast(0.9),
                    loops.stream().map(l -> new Check(where, rate(asFast, l), rate(asFast, c))).toList()));
            ManyReads asCheap = target.get();
            asCheap.decide(findings, Finding.target(NAME, "the library's event loop costs the server at most 1/0.9 of "
                    + "the C epoll server's CPU per frame (C's CPU per frame over the loop's, at least 0.9x): the first "
                    + "target seen from the server, whoever limits the rate", Rule.atLeast(0.9),
                    loops.stream().map(l -> new Check(where, cpu(asCheap, c), cpu(asCheap, l))).toList()));
        }
        ManyCase.Load epollLoop = new ManyCase.Load(ManyServer.LOOP_EPOLL, most);
        if (results.has(epollLoop) && results.has(c)) {
            ManyReads noDearer = target.get();
            noDearer.decide(findings, Finding.target(NAME, "the library's event loop over epoll costs the server no "
                    + "more CPU per frame than the C epoll server (C's CPU per frame over the loop's, at least 1.0x): "
                    + "the same system calls, so the difference is the loop's own user time", Rule.atLeast(1.0),
                    List.of(new Check(where, cpu(noDearer, c), cpu(noDearer, epollLoop)))));
        }
        if (!loops.isEmpty() && results.has(netty)) {
            ManyReads faster = target.get();
            faster.decide(findings, Finding.target(NAME, "the library's event loop echoes at least 1.2x the frames a "
                    + "second of Netty's, one loop each", Rule.atLeast(1.2),
                    loops.stream().map(l -> new Check(where, rate(faster, l), rate(faster, netty))).toList()));
            ManyReads cheaper = target.get();
            cheaper.decide(findings, Finding.target(NAME, "the library's event loop costs the server at most 1/1.2 of "
                    + "Netty's CPU per frame (Netty's over the loop's, at least 1.2x)", Rule.atLeast(1.2),
                    loops.stream().map(l -> new Check(where, cpu(cheaper, netty), cpu(cheaper, l))).toList()));
            ManyReads tailReads = target.get();
            ManyResult.Load theirs = (ManyResult.Load) tailReads.read(netty);
            List<Check> tails = new ArrayList<>();
            for (ManyCase.Load l : loops) {
                ManyResult.Load ours = (ManyResult.Load) tailReads.read(l);
                tails.add(new Check(where, new Figure(l.server().label() + " p99", ours.p99(), Unit.MICROSECONDS),
                        new Figure(netty.server().label() + " p99", theirs.p99(), Unit.MICROSECONDS)));
                tails.add(new Check(where, new Figure(l.server().label() + " p99.9", ours.p999(), Unit.MICROSECONDS),
                        new Figure(netty.server().label() + " p99.9", theirs.p999(), Unit.MICROSECONDS)));
            }
            tailReads.decide(findings, Finding.target(NAME, "the library's event loop's latency under that load is no "
                    + "worse than Netty's at p99 and p99.9", Rule.atMost(1.0), tails));
        }
        ManyCase.Load epoll = new ManyCase.Load(ManyServer.LOOP_EPOLL, most);
        ManyCase.Load uring = new ManyCase.Load(ManyServer.LOOP_URING, most);
        if (results.has(epoll) && results.has(uring)) {
            // On loopback, and across the veth link where it was made: the kernel's TCP work differs between them.
            ManyReads fasterReads = target.get();
            ManyReads cheaperReads = target.get();
            List<Check> faster = new ArrayList<>(List.of(new Check(where, rate(fasterReads, uring),
                    rate(fasterReads, epoll))));
            List<Check> cheaper = new ArrayList<>(List.of(new Check(where, cpu(cheaperReads, epoll),
                    cpu(cheaperReads, uring))));
            ManyCase.Across epollFar = new ManyCase.Across(ManyServer.LOOP_EPOLL, most);
            ManyCase.Across uringFar = new ManyCase.Across(ManyServer.LOOP_URING, most);
            if (results.has(epollFar) && results.has(uringFar)) {
                String far = String.format(Locale.ROOT, "%s, %,d connections across a veth link", NAME, most);
                faster.add(new Check(far, rate(fasterReads, uringFar), rate(fasterReads, epollFar)));
                cheaper.add(new Check(far, cpu(cheaperReads, epollFar), cpu(cheaperReads, uringFar)));
            }
            fasterReads.decide(findings, Finding.target(NAME, "the library's event loop over io_uring echoes at least "
                    + "1.2x the frames a second of the same loop over epoll", Rule.atLeast(1.2), faster));
            cheaperReads.decide(findings, Finding.target(NAME, "the library's event loop over io_uring costs the "
                    + "server at most 1/1.2 of its CPU per frame over epoll (epoll's over io_uring's, at least 1.2x): "
                    + "the same target seen from the server, whoever limits the rate", Rule.atLeast(1.2), cheaper));
        }
        ManyCase.Load nettyUring = new ManyCase.Load(ManyServer.NETTY_URING, most);
        if (results.has(uring) && results.has(nettyUring)) {
            ManyReads uringCheaper = target.get();
            uringCheaper.decide(findings, Finding.target(NAME, "the library's event loop over io_uring costs the "
                    + "server at most 1/1.2 of Netty's io_uring transport's CPU per frame (Netty's over the loop's, at "
                    + "least 1.2x)", Rule.atLeast(1.2), List.of(new Check(where, cpu(uringCheaper, nettyUring),
                            cpu(uringCheaper, uring)))));
        }
        ManyReads drivesReads = target.get();
        List<Check> drives = new ArrayList<>();
        for (ManyLoad generator : ManyLoad.values()) {
            ManyCase.Driven driven = new ManyCase.Driven(generator, most);
            if (generator != ManyLoad.C && results.has(driven) && results.has(c)) {
                drives.add(new Check(where, new Figure(generator.label(),
                        ((ManyResult.Load) drivesReads.read(driven)).framesPerSecond(), Unit.MSG_PER_S),
                        new Figure(ManyLoad.C.label(), ((ManyResult.Load) drivesReads.read(c)).framesPerSecond(),
                                Unit.MSG_PER_S)));
            }
        }
        if (!drives.isEmpty()) {
            drivesReads.decide(findings, Finding.target(NAME, "the library's client loop drives the C epoll echo at "
                    + "least 0.9x as fast as the C load generator does, the same load", Rule.atLeast(0.9), drives));
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
            ManyReads tlsCheaper = target.get();
            tlsCheaper.decide(findings, Finding.target(NAME, "over TLS, the library's event loop costs the server at "
                    + "most 1/1.2 of Netty's CPU per frame, the " + engine + " engine each (Netty's over the loop's, at "
                    + "least 1.2x)", Rule.atLeast(1.2), List.of(new Check(overTls, cpu(tlsCheaper, nettyTls),
                            cpu(tlsCheaper, ourTls)))));
            ManyReads tlsTails = target.get();
            ManyResult.Load ours = (ManyResult.Load) tlsTails.read(ourTls);
            ManyResult.Load theirs = (ManyResult.Load) tlsTails.read(nettyTls);
            tlsTails.decide(findings, Finding.target(NAME, "over TLS, the library's event loop's latency under that "
                    + "load is no worse than Netty's at p99 and p99.9, the " + engine + " engine each", Rule.atMost(1.0),
                    List.of(
                            new Check(overTls, new Figure(ourTls.server().label() + " p99", ours.p99(), Unit.MICROSECONDS),
                                    new Figure(nettyTls.server().label() + " p99", theirs.p99(), Unit.MICROSECONDS)),
                            new Check(overTls, new Figure(ourTls.server().label() + " p99.9", ours.p999(),
                                    Unit.MICROSECONDS), new Figure(nettyTls.server().label() + " p99.9", theirs.p999(),
                                            Unit.MICROSECONDS)))));
        }
        findings.addAll(ManyHandshakes.findings(results, placement, notes));
        ManyCase.Load recorded = new ManyCase.Load(ManyServer.LOOP_EPOLL_JFR, most);
        if (results.has(epoll) && results.has(recorded)) {
            ManyReads jfr = target.get();
            jfr.decide(findings, Finding.target(NAME, "the server's JFR events, on and recorded, cost the loop at most "
                    + "10% more CPU per frame", Rule.atMost(1.1), List.of(new Check(where, cpu(jfr, recorded),
                            cpu(jfr, epoll)))));
        }
        ManyReads keepReads = target.get();
        List<Check> keep = new ArrayList<>();
        List<Check> bounded = new ArrayList<>();
        for (ManyServer loop : LOOPS) {
            ManyCase.Slow slow = new ManyCase.Slow(loop, SLOW_CASE_CONNECTIONS);
            if (results.has(slow)) {
                ManyResult.Slow r = (ManyResult.Slow) keepReads.read(slow);
                String at = String.format(Locale.ROOT, "%s, %d connections and a slow reader", NAME, slow.connections());
                keep.add(new Check(at, new Figure(loop.label() + " beside the slow reader", r.besideSlow(),
                        Unit.MSG_PER_S), new Figure(loop.label() + " alone", r.alone(), Unit.MSG_PER_S)));
                bounded.add(new Check(at, new Figure(loop.label() + " RSS growth",
                        Stats.of(List.of(Math.max(0, r.rssPeakKib() - r.rssBeforeKib()) * 1024.0)), Unit.BYTES),
                        new Figure("the bound", Stats.exact(SLOW_GROWTH_BOUND), Unit.BYTES)));
            }
        }
        if (!keep.isEmpty()) {
            keepReads.decide(findings, Finding.target(NAME, "beside a slow reader, the library's event loop's other "
                    + "connections keep at least 90% of their frames a second", Rule.atLeast(0.9), keep));
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
    private static Figure cpu(ManyReads reads, ManyCase kase) {
        ManyResult.Load load = (ManyResult.Load) reads.read(kase);
        return new Figure(kase.server().label() + " server CPU", load.serverCpuNsPerFrame(), Unit.CPU_NS_PER_MSG);
    }

    /** {@code kase}: a load on loopback or across the link, whose result is a {@link ManyResult.Load}. */
    private static Figure rate(ManyReads reads, ManyCase kase) {
        ManyResult.Load load = (ManyResult.Load) reads.read(kase);
        return new Figure(kase.server().label(), load.framesPerSecond(), Unit.MSG_PER_S);
    }
}
