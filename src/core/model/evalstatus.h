#pragma once

#include <QList>
#include <QString>

#include <optional>

// How one evaluation ended (nkibench/runner/README.md, "Statuses"). The runner and the database spell these
// as lower-case names.
enum class EvalStatus
{
    Ok,
    Incorrect,
    CompileError,
    RuntimeError,
    Timeout,
    Rejected, // failed a static check, or a physically impossible measurement
    Crashed,
    InfraError
};

namespace EvalStatuses {
QString name(EvalStatus status); // "ok", "compile_error", ...
std::optional<EvalStatus> fromName(const QString &name);
QList<EvalStatus> all();
// The kernel's text is what went wrong, so the fixer can act on it. Timeouts, crashes and infrastructure
// errors are not the text's fault.
bool isKernelFault(EvalStatus status);
} // namespace EvalStatuses
