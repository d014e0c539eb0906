#pragma once

#include <QString>

#include <optional>

// How much a finding matters: a warning names a likely bottleneck, info a lead worth a look.
enum class Severity
{
    Info,
    Warning,
};

namespace Severities {
inline QString name(Severity s)
{
    return s == Severity::Warning ? QStringLiteral("warning") : QStringLiteral("info");
}

inline std::optional<Severity> fromName(const QString &name)
{
    if (name == QStringLiteral("warning"))
        return Severity::Warning;
    if (name == QStringLiteral("info"))
        return Severity::Info;
    return std::nullopt;
}
} // namespace Severities
