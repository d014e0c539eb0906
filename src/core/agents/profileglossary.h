#pragma once

#include <QJsonObject>
#include <QString>

#include <optional>

// Words for the profile metrics (the runner protocol's names, neuron-profile's summary names) and the "name:
// value" text agents see. Only metrics present are shown: the runner omits what a kernel or backend does not
// report.
namespace ProfileGlossary {
QString describe(const QString &metric); // empty for metrics we have no words for
// The glossary lines for the metrics present in `metrics` (plus latency).
QString glossaryFor(const QJsonObject &metrics);
// "latency_ms: 0.412\nhbm_read_bytes: 4194304\n..." in a stable order: known metrics first, then the rest.
QString format(std::optional<double> latencyMs, const QJsonObject &metrics);
} // namespace ProfileGlossary
