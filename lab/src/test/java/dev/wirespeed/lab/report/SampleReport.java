package dev.wirespeed.lab.report;

import dev.wirespeed.lab.env.Machine;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.result.Check;
import dev.wirespeed.lab.result.Figure;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Measurement;
import dev.wirespeed.lab.result.Medium;
import dev.wirespeed.lab.result.Percentile;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Role;
import dev.wirespeed.lab.result.Rule;
import dev.wirespeed.lab.result.Series;
import dev.wirespeed.lab.result.SetAside;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Unit;
import java.util.ArrayList;
import java.util.List;

/** A small report of every kind of row, finding and row set aside, for the report's tests. */
final class SampleReport {
    static final Placement APART = new Placement(Placement.Kind.DIFFERENT_CORES, 0, 1);
    static final Placement TOGETHER = new Placement(Placement.Kind.SAME_CORE, 1, 1);
    static final Provenance PROVENANCE = new Provenance("./wirespeed lab --quick --out docs/results/latest tcp latency",
            "0123456789abcdef0123456789abcdef01234567-dirty", "2026-11-26T10:15:30Z", 266);

    private SampleReport() {
    }

    static LabReport create() {
        String[] cases = {"unbuffered", "zero-copy", "wirespeed <- C writer", "C read(2) blocking"};
        Role[] roles = {Role.ARTICLE, Role.ARTICLE, Role.LIBRARY, Role.CEILING};
        double[] mb = {51.8, 2483.2, 2379.8, 3600.0};
        List<Measurement> rows = new ArrayList<>();
        for (Placement placement : List.of(APART, TOGETHER)) {
            for (int i = 0; i < cases.length; i++) {
                rows.add(new Series("tcp", cases[i], roles[i], Medium.TCP, 100)
                        .at(placement, Unit.MB_PER_S, new Stats(mb[i], mb[i] * 0.95, mb[i] * 1.05, 3))
                        .published(i == 1 ? 2147.1 : Double.NaN).ofCeiling(3600.0));
            }
            double[] us = {6.1, 6.4, 7.7, 42, 120, 206};
            for (Percentile p : Percentile.values()) {
                double v = us[p.ordinal()];
                rows.add(new Series("latency", "native-spin", Role.LIBRARY, Medium.TCP, 100)
                        .at(placement, Unit.MICROSECONDS, new Stats(v, v * 0.9, v * 1.1, 3)).percentile(p)
                        .published(p == Percentile.P50 ? 5.7 : Double.NaN));
            }
        }
        Figure zeroCopy = new Figure("zero-copy", new Stats(2483.2, 2400, 2600, 3), Unit.MB_PER_S);
        Figure compact = new Figure("channel-compact", new Stats(2400, 2300, 2500, 3), Unit.MB_PER_S);
        Figure ceiling = new Figure("ceiling", Stats.exact(3600), Unit.MB_PER_S);
        Figure ours = new Figure("wirespeed <- C writer", new Stats(2379.8, 2300, 2400, 3), Unit.MB_PER_S);
        List<Finding> findings = List.of(
                Finding.claim("tcp", "zero-copy beats copying the body <check escaping>", Rule.above(1), 2147.1 / 1728.0,
                        List.of(new Check("tcp, same core", zeroCopy, compact))),
                Finding.claim("tcp", "compact-on-demand beats append-until-end", Rule.above(1), Double.NaN,
                        List.of(new Check("tcp, different cores", compact, zeroCopy))),
                Finding.target("tcp", "wirespeed <- C writer reaches 90% of the ceiling", Rule.atLeast(0.9),
                        List.of(new Check("tcp, different cores", ours, ceiling))),
                Finding.target("tcp", "wirespeed is at least as fast as zero-copy", Rule.atLeast(1).within(0.05),
                        List.of(new Check("tcp, different cores", ours, zeroCopy))));
        List<SetAside> setAside = List.of(
                new SetAside("tcp", "netty-nio", APART, null, SetAside.Reason.timed(new Stats(608, 580, 640, 4),
                        List.of(5000.0), 0.15, Unit.MB_PER_S)),
                new SetAside("latency", "jdk-spin", TOGETHER, Percentile.P50,
                        SetAside.Reason.spread(new Stats(60, 37, 90_702, 3), Unit.MICROSECONDS)));
        return new LabReport(LabReport.SCHEMA, PROVENANCE, new Machine("Test CPU", 2, "24 GiB", "Linux 6.18 amd64", "Test JDK 25"),
                Mode.QUICK, List.of(new LabReport.Experiment("tcp", "TCP loopback"),
                        new LabReport.Experiment("latency", "round trips")), rows, findings, setAside,
                List.of("experiment 'pipe' skipped: <no pipe>"));
    }
}
