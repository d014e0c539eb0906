#include "model/evalstatus.h"

namespace EvalStatuses {

QString name(EvalStatus status)
{
    switch (status) {
    case EvalStatus::Ok:
        return QStringLiteral("ok");
    case EvalStatus::Incorrect:
        return QStringLiteral("incorrect");
    case EvalStatus::CompileError:
        return QStringLiteral("compile_error");
    case EvalStatus::RuntimeError:
        return QStringLiteral("runtime_error");
    case EvalStatus::Timeout:
        return QStringLiteral("timeout");
    case EvalStatus::Rejected:
        return QStringLiteral("rejected");
    case EvalStatus::Crashed:
        return QStringLiteral("crashed");
    case EvalStatus::InfraError:
        break;
    }
    return QStringLiteral("infra_error");
}

QList<EvalStatus> all()
{
    return {EvalStatus::Ok,      EvalStatus::Incorrect, EvalStatus::CompileError, EvalStatus::RuntimeError,
            EvalStatus::Timeout, EvalStatus::Rejected,  EvalStatus::Crashed,      EvalStatus::InfraError};
}

std::optional<EvalStatus> fromName(const QString &name)
{
    for (EvalStatus s : all())
        if (EvalStatuses::name(s) == name)
            return s;
    return std::nullopt;
}

bool isKernelFault(EvalStatus status)
{
    return status == EvalStatus::CompileError || status == EvalStatus::RuntimeError ||
           status == EvalStatus::Incorrect || status == EvalStatus::Rejected;
}

} // namespace EvalStatuses
