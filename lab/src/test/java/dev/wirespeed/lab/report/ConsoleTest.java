package dev.wirespeed.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.wirespeed.lab.result.Table;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the terminal shows: tables laid out in columns, then the findings with their figures in brief, the rows
 * set aside with why, then notes.
 */
class ConsoleTest {
    @Test
    void aTableHasItsFirstColumnLeftAlignedAndTheOthersRightAlignedEachAsWideAsItsWidestCell() {
        StringWriter out = new StringWriter();
        Console.print(new Table("tcp: loopback", List.of("case", "MB/s"), List.of(List.of("zero-copy", "2,483.2"),
                List.of("a", "1.0")), List.of("a note")), new PrintWriter(out));
        assertEquals("""

                tcp: loopback
                  case          MB/s
                  zero-copy  2,483.2
                  a              1.0
                  a note
                """, out.toString());
    }

    @Test
    void theFindingsGiveTheirVerdictTitleAndExperimentThenTheirFiguresInBriefThenTheRowsSetAsideThenTheNotes() {
        StringWriter out = new StringWriter();
        Console.printFindings(SampleReport.create(), new PrintWriter(out));
        assertEquals("""

                findings:
                  [holds] zero-copy beats copying the body <check escaping> (> 1x) (tcp)
                         tcp, same core: zero-copy 2,483.2 MB/s [2,400.0-2,600.0] / channel-compact 2,400.0 MB/s \
                [2,300.0-2,500.0] = 1.03x; article 1.24x
                  [DOES NOT HOLD] compact-on-demand beats append-until-end (> 1x) (tcp)
                         tcp, different cores: channel-compact 2,400.0 MB/s [2,300.0-2,500.0] / zero-copy 2,483.2 MB/s \
                [2,400.0-2,600.0] = 0.97x
                  [DOES NOT HOLD] target: wirespeed <- C writer reaches 90% of the ceiling (>= 0.9x) (tcp)
                         tcp, different cores: wirespeed <- C writer 2,379.8 MB/s [2,300.0-2,400.0] / ceiling 3,600.0 \
                MB/s = 0.66x
                  [holds] target: wirespeed is at least as fast as zero-copy (>= 1x within 5% (from 0.95x)) (tcp)
                         tcp, different cores: wirespeed <- C writer 2,379.8 MB/s [2,300.0-2,400.0] / zero-copy 2,483.2 \
                MB/s [2,400.0-2,600.0] = 0.96x

                set aside, judging nothing:
                  netty-nio at different cores: its timed rounds read 608.0 MB/s and an untimed pass of the same client \
                5,000.0 MB/s: -88%, beyond the 15% the lab allows (tcp)
                  jdk-spin p50 at same core: its figures spread from 37.0 to 90,702.0 us about a median of 60.0: wider \
                than the median (latency)
                note: experiment 'pipe' skipped: <no pipe>
                """, out.toString());
    }
}
