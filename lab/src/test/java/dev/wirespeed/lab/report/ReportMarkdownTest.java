package dev.wirespeed.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.experiment.Outcome;
import dev.wirespeed.lab.result.Table;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code results.md}: every table, finding and row set aside, each cell kept in its cell. */
class ReportMarkdownTest {
    private static final Table TABLE = new Table("tcp: 100-byte bodies | MB/s", List.of("case", "MB/s [min-max]"),
            List.of(List.of("zero-copy", "2,483.2 [2,359.0-2,607.4]"), List.of("a|b*c", "1.0")),
            List.of("a note"));

    @Test
    void tablesFollowTheirExperimentWithTheFirstColumnLeftAndTheOthersRightAligned() {
        LabReport report = SampleReport.create();
        String md = ReportMarkdown.render(report, List.of(new Outcome("tcp", "the first article", List.of(),
                List.of(TABLE), List.of(), List.of())));
        assertTrue(md.startsWith("## wirespeed lab (" + report.mode().id() + ")\n\n"), md);
        assertTrue(md.contains("""

                ### `tcp`: the first article

                **tcp: 100-byte bodies \\| MB/s**

                | case | MB/s [min-max] |
                | --- | ---: |
                | zero-copy | 2,483.2 [2,359.0-2,607.4] |
                | a\\|b\\*c | 1.0 |

                - a note
                """), md);
    }

    @Test
    void theHeaderNamesTheCommandModeCommitDateMachineAndJdk() {
        String md = ReportMarkdown.render(SampleReport.create(), List.of());
        assertTrue(md.startsWith("""
                ## wirespeed lab (quick)

                - Command: `./wirespeed lab --quick --out docs/results/latest tcp latency`
                - Mode: quick
                - Commit: `0123456789abcdef0123456789abcdef01234567-dirty`
                - Date: 2026-11-26 10:15:30 UTC (the run took 4 min 26 s)
                - Machine: Test CPU, 2 CPUs, 24 GiB, Linux 6.18 amd64
                - JDK: Test JDK 25

                Written by the lab, not by hand; the same run's figures are in `results.json` (with its schema) \
                and `results.csv` beside this page, and its charts in `index.html`.
                """), md);
    }

    @Test
    void aCommandIsCodeWhateverItHolds() {
        assertEquals("`a*b|c`", ReportMarkdown.code("a*b|c"));
        assertEquals("`` it`s ``", ReportMarkdown.code("it`s"));
    }

    @Test
    void everyFindingIsARowWithItsFiguresAndVerdictThenTheRowsSetAsideByExperimentThenTheNotes() {
        String md = ReportMarkdown.render(SampleReport.create(), List.of());
        assertEquals("""

                ### Findings

                | experiment | claim | figures | verdict |
                | --- | --- | --- | --- |
                | tcp | zero-copy beats copying the body <check escaping> (> 1x) | tcp, same core: zero-copy 2,483.2 MB/s \
                [2,400.0-2,600.0] / channel-compact 2,400.0 MB/s [2,300.0-2,500.0] = 1.03x; article 1.24x | holds |
                | tcp | compact-on-demand beats append-until-end (> 1x) | tcp, different cores: channel-compact 2,400.0 MB/s \
                [2,300.0-2,500.0] / zero-copy 2,483.2 MB/s [2,400.0-2,600.0] = 0.97x | **does not hold** |
                | tcp | target: wirespeed <- C writer reaches 90% of the ceiling (>= 0.9x) | tcp, different cores: wirespeed \
                <- C writer 2,379.8 MB/s [2,300.0-2,400.0] / ceiling 3,600.0 MB/s = 0.66x | **does not hold** |
                | tcp | target: wirespeed is at least as fast as zero-copy (>= 1x within 5% (from 0.95x)) | tcp, different \
                cores: wirespeed <- C writer 2,379.8 MB/s [2,300.0-2,400.0] / zero-copy 2,483.2 MB/s [2,400.0-2,600.0] = \
                0.96x | holds |

                ### Rows set aside

                The lab does not trust these rows: no finding is judged on them, and the notes name each finding left out.

                **`tcp`**

                | row | placement | reason |
                | --- | --- | --- |
                | netty-nio | different cores (server cpu0, client cpu1) | its timed rounds read 608.0 MB/s and an untimed \
                pass of the same client 5,000.0 MB/s: -88%, beyond the 15% the lab allows |

                **`latency`**

                | row | placement | reason |
                | --- | --- | --- |
                | jdk-spin p50 | same core (server cpu1, client cpu1) | its figures spread from 37.0 to 90,702.0 us about a \
                median of 60.0: wider than the median |

                ### Notes

                - experiment 'pipe' skipped: <no pipe>
                """, md.substring(md.indexOf("\n### Findings")));
    }

    @Test
    void aRunThatSetNothingAsideHasNoSuchSection() {
        LabReport sample = SampleReport.create();
        LabReport trusted = new LabReport(sample.schema(), sample.provenance(), sample.machine(), sample.mode(),
                sample.experiments(), sample.measurements(), sample.findings(), List.of(), sample.notes());
        assertFalse(ReportMarkdown.render(trusted, List.of()).contains("set aside"));
    }

    @Test
    void aCellKeepsPipesBackslashesAndLineBreaksInside() {
        assertEquals("a\\|b \\\\c\\* d", ReportMarkdown.cell("a|b \\c*\nd"));
    }
}
