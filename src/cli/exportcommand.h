#pragma once

#include "command.h"

// accelopt export SESSION --to DIR: the session's best (or a chosen) kernel into the user's project, with its
// provenance header, plus the session's candidates as CSV and JSON and a Markdown report beside it.
class ExportCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("export"); }
    QString summary() const override
    {
        return QStringLiteral("Export a session's best kernel with its provenance, and a report.");
    }
    int run(const QStringList &arguments) override;
};
