package dev.wirespeed.lab.result;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * The one kind of verdict the lab gives: a ratio of two figures measured in the same run is at least,
 * at most, above or below a bound, with a tolerance stated in the rule itself.
 *
 * <p>With tolerance {@code t}, {@code atLeast(b)} holds from {@code b * (1 - t)} and {@code atMost(b)}
 * up to {@code b * (1 + t)}; the strict bounds take no tolerance. Every rule can fail: a ratio past
 * its bound, NaN, or an infinite one fails it.
 *
 * @param bound which side of {@code value} the ratio must fall on
 * @param value the bound, a finite ratio {@code > 0}
 * @param tolerance {@code 0 <= tolerance < 1}, 0 for the strict bounds
 */
public record Rule(Bound bound, double value, double tolerance) {
    /** Which side of the bound a ratio must fall on. */
    public enum Bound {
        /** {@code ratio >= value * (1 - tolerance)}. */
        AT_LEAST(">="),
        /** {@code ratio <= value * (1 + tolerance)}. */
        AT_MOST("<="),
        /** {@code ratio > value}. */
        ABOVE(">"),
        /** {@code ratio < value}. */
        BELOW("<");

        private final String symbol;

        Bound(String symbol) {
            this.symbol = symbol;
        }

        /** {@return the comparison as written, e.g. {@code >=}} */
        @JsonValue
        public String symbol() {
            return symbol;
        }
    }

    /**
     * Checks the bound.
     *
     * @throws IllegalArgumentException if {@code value} is not finite and positive, the tolerance is
     *     outside {@code [0, 1)}, or a strict bound has a tolerance
     */
    public Rule {
        if (!(value > 0) || Double.isInfinite(value) || !(tolerance >= 0 && tolerance < 1)
                || (tolerance > 0 && (bound == Bound.ABOVE || bound == Bound.BELOW))) {
            throw new IllegalArgumentException("rule bound=" + bound + " value=" + value + " tolerance=" + tolerance
                    + ": value must be finite and > 0, tolerance in [0, 1) and 0 for > and <");
        }
    }

    /**
     * {@return a rule that holds for a ratio of at least {@code value}}
     *
     * @param value the bound
     */
    public static Rule atLeast(double value) {
        return new Rule(Bound.AT_LEAST, value, 0);
    }

    /**
     * {@return a rule that holds for a ratio of at most {@code value}}
     *
     * @param value the bound
     */
    public static Rule atMost(double value) {
        return new Rule(Bound.AT_MOST, value, 0);
    }

    /**
     * {@return a rule that holds for a ratio above {@code value}}
     *
     * @param value the bound
     */
    public static Rule above(double value) {
        return new Rule(Bound.ABOVE, value, 0);
    }

    /**
     * {@return a rule that holds for a ratio below {@code value}}
     *
     * @param value the bound
     */
    public static Rule below(double value) {
        return new Rule(Bound.BELOW, value, 0);
    }

    /**
     * {@return this rule with a tolerance}: the noise a verdict forgives, stated with it
     *
     * @param share the share of the bound forgiven, e.g. 0.05 for 5%
     */
    public Rule within(double share) {
        return new Rule(bound, value, share);
    }

    /** {@return the ratio at which the rule turns}: the bound moved by the tolerance */
    @JsonProperty(access = JsonProperty.Access.READ_ONLY)
    public double threshold() {
        return switch (bound) {
            case AT_LEAST -> value * (1 - tolerance);
            case AT_MOST -> value * (1 + tolerance);
            case ABOVE, BELOW -> value;
        };
    }

    /**
     * {@return whether {@code ratio} satisfies the rule}; NaN and infinities never do
     *
     * @param ratio a measured ratio
     */
    public boolean holds(double ratio) {
        if (Double.isNaN(ratio) || Double.isInfinite(ratio)) {
            return false;
        }
        return switch (bound) {
            case AT_LEAST -> ratio >= threshold();
            case AT_MOST -> ratio <= threshold();
            case ABOVE -> ratio > value;
            case BELOW -> ratio < value;
        };
    }

    /** {@return the rule in words, e.g. {@code >= 3x} or {@code >= 1x within 5% (from 0.95x)}} */
    @Override
    public String toString() {
        String text = bound.symbol() + " " + number(value) + "x";
        if (tolerance > 0) {
            text += String.format(Locale.ROOT, " within %s%% (%s %sx)", number(100 * tolerance),
                    bound == Bound.AT_LEAST ? "from" : "up to", number(threshold()));
        }
        return text;
    }

    private static String number(double value) {
        return value == Math.rint(value) ? String.valueOf((long) value)
                : String.format(Locale.ROOT, "%.3f", value).replaceAll("0+$", "");
    }
}
