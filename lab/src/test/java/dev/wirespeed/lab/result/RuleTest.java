package dev.wirespeed.lab.result;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class RuleTest {
    @Test
    void atLeastHoldsFromItsBoundAndFailsJustBelow() {
        Rule rule = Rule.atLeast(3);
        assertTrue(rule.holds(3.0));
        assertTrue(rule.holds(7.5));
        assertFalse(rule.holds(2.999));
        assertEquals(">= 3x", rule.toString());
    }

    @Test
    void atMostHoldsUpToItsBoundAndFailsJustAbove() {
        Rule rule = Rule.atMost(1.05);
        assertTrue(rule.holds(1.05));
        assertTrue(rule.holds(0.2));
        assertFalse(rule.holds(1.0501));
        assertEquals("<= 1.05x", rule.toString());
    }

    @Test
    void strictBoundsFailAtTheirBound() {
        assertFalse(Rule.above(1).holds(1.0));
        assertTrue(Rule.above(1).holds(1.0001));
        assertFalse(Rule.below(1).holds(1.0));
        assertTrue(Rule.below(1).holds(0.9999));
        assertEquals("> 1x", Rule.above(1).toString());
        assertEquals("< 1x", Rule.below(1).toString());
    }

    @Test
    void aToleranceMovesTheThresholdAndIsStated() {
        Rule atLeast = Rule.atLeast(1).within(0.05);
        assertTrue(atLeast.holds(0.95));
        assertFalse(atLeast.holds(0.9499));
        assertEquals(">= 1x within 5% (from 0.95x)", atLeast.toString());
        Rule atMost = Rule.atMost(1.25).within(0.2);
        assertTrue(atMost.holds(1.5));
        assertFalse(atMost.holds(1.5001));
        assertEquals("<= 1.25x within 20% (up to 1.5x)", atMost.toString());
    }

    @Test
    void noRuleHoldsForAMissingOrInfiniteRatio() {
        for (Rule rule : List.of(Rule.atLeast(1), Rule.atMost(1), Rule.above(1), Rule.below(1))) {
            assertFalse(rule.holds(Double.NaN), rule.toString());
            assertFalse(rule.holds(Double.POSITIVE_INFINITY), rule.toString());
            assertFalse(rule.holds(Double.NEGATIVE_INFINITY), rule.toString());
        }
    }

    @Test
    void refusesABoundThatCannotBeJudgedNamingItsValues() {
        assertEquals("rule bound=AT_LEAST value=0.0 tolerance=0.0: value must be finite and > 0, tolerance in [0, 1) "
                + "and 0 for > and <", assertThrows(IllegalArgumentException.class, () -> Rule.atLeast(0)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> Rule.atMost(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> Rule.atMost(Double.POSITIVE_INFINITY));
        assertThrows(IllegalArgumentException.class, () -> Rule.atLeast(1).within(1));
        assertThrows(IllegalArgumentException.class, () -> Rule.atLeast(1).within(-0.1));
        assertEquals("rule bound=ABOVE value=1.0 tolerance=0.05: value must be finite and > 0, tolerance in [0, 1) "
                + "and 0 for > and <", assertThrows(IllegalArgumentException.class, () -> Rule.above(1).within(0.05))
                        .getMessage());
    }
}
