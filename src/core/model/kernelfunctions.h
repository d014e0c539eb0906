#pragma once

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

// The functions of an NKI kernel file, and which one is the kernel, by the runner's rule
// (nkibench/nkisim/kernelfn.py): the one named (--function, task.json "function"), else the only
// @nki.jit (or @nki.baremetal) function (of several, the only one no other function calls, else `kernel`),
// else, for undecorated legacy files, `kernel`, `optimized_kernel` or the only function. Found from the text
// (top-level `def`s, their decorators and bodies), without running Python.
class KernelFunctions
{
public:
    struct Function
    {
        QString name;
        QStringList parameters; // positional parameters, in order
        int line = 0;           // 1-based line of the `def`
        bool jit = false;       // decorated with nki.jit / jit / baremetal
        QStringList calls;      // names this function's body calls (`name(`)
    };
    // What the file says about an argument's shape: "x: [256, 2048] float32" in a comment or docstring, or
    // `assert x.shape == (256, 2048)`.
    struct ShapeHint
    {
        QList<qint64> shape;
        QString dtype; // empty when the file does not say
    };

    static QList<Function> all(const QString &source);
    // nullopt with `error` saying what is missing and what to do; `wanted` empty: by the rule.
    static std::optional<Function> pick(const QString &source, const QString &wanted, QString &error);
    static QHash<QString, ShapeHint> shapeHints(const QString &source);
};
