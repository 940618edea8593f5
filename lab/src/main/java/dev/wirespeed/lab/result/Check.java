package dev.wirespeed.lab.result;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Locale;
import java.util.Objects;

/**
 * One ratio a finding is judged on: {@code numerator / denominator}, measured in the same run.
 *
 * @param where the cell it was measured in, e.g. {@code tcp, different cores} or {@code 32768 bytes}
 * @param numerator the figure on top
 * @param denominator the figure below
 */
public record Check(String where, Figure numerator, Figure denominator) {
    /**
     * Checks the fields.
     *
     * @throws NullPointerException if one is null
     */
    public Check {
        Objects.requireNonNull(where, "where");
        Objects.requireNonNull(numerator, "numerator");
        Objects.requireNonNull(denominator, "denominator");
    }

    /** {@return the ratio of the medians} */
    @JsonProperty(access = JsonProperty.Access.READ_ONLY)
    public double ratio() {
        return numerator.stats().median() / denominator.stats().median();
    }

    /** {@return the check as text: {@code where: a / b = 1.23x}} */
    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%s: %s / %s = %.2fx", where, numerator, denominator, ratio());
    }
}
