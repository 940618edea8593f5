package dev.wirespeed.lab.result;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class FindingTest {
    private static Check check(String where, double ours, double theirs) {
        return new Check(where, new Figure("wirespeed", new Stats(ours, ours * 0.9, ours * 1.1, 3), Unit.MB_PER_S),
                new Figure("zero-copy", Stats.exact(theirs), Unit.MB_PER_S));
    }

    @Test
    void holdsOnlyWhenEveryCheckSatisfiesTheRule() {
        Finding both = Finding.target("tcp", "wirespeed is at least as fast as zero-copy", Rule.atLeast(1),
                List.of(check("different cores", 2573, 2118), check("same core", 1659, 1359)));
        assertTrue(both.holds());
        Finding one = Finding.target("tcp", "wirespeed is at least as fast as zero-copy", Rule.atLeast(1),
                List.of(check("different cores", 2573, 2118), check("same core", 1300, 1359)));
        assertFalse(one.holds());
        assertEquals(List.of(one.checks().get(1)), one.failures());
    }

    @Test
    void saysItsClaimRuleAndFiguresWithTheArticlesRatioLast() {
        Finding finding = Finding.claim("tcp", "zero-copy beats copying the body", Rule.above(1), 2147.1 / 1728.0,
                List.of(check("tcp, same core", 1359, 1237)));
        assertEquals("zero-copy beats copying the body (> 1x)", finding.title());
        assertEquals("tcp, same core: wirespeed 1,359.0 MB/s [1,223.1-1,494.9] / zero-copy 1,237.0 MB/s = 1.10x; "
                + "article 1.24x", finding.figures());
        assertEquals("target: ours (>= 1x)", Finding.target("x", "ours", Rule.atLeast(1),
                List.of(check("a", 1, 1))).title());
    }

    @Test
    void inBriefAFindingShowsItsFailingChecksOrElseItsWorstOne() {
        Finding holds = Finding.target("tcp", "ours", Rule.atLeast(1),
                List.of(check("a", 2000, 1000), check("b", 1100, 1000), check("c", 3000, 1000)));
        assertEquals("b", holds.worst().where());
        assertEquals("worst of 3: b: wirespeed 1,100.0 MB/s [990.0-1,210.0] / zero-copy 1,000.0 MB/s = 1.10x",
                holds.summary());
        Finding fails = Finding.target("tcp", "ours", Rule.atMost(1),
                List.of(check("a", 2000, 1000), check("b", 900, 1000), check("c", 3000, 1000)));
        assertEquals("c", fails.worst().where());
        assertEquals("fails at 2 of 3: a: wirespeed 2,000.0 MB/s [1,800.0-2,200.0] / zero-copy 1,000.0 MB/s = 2.00x; "
                + "c: wirespeed 3,000.0 MB/s [2,700.0-3,300.0] / zero-copy 1,000.0 MB/s = 3.00x", fails.summary());
    }

    @Test
    void aFindingWithoutACheckIsRefused() {
        assertEquals("finding 'nothing measured' has no check", assertThrows(IllegalArgumentException.class,
                () -> Finding.target("tcp", "nothing measured", Rule.atLeast(1), List.of())).getMessage());
    }
}
