#pragma once

#include <QString>
#include <QStringList>

// Helpers for the prose parts of agent replies, which models format loosely: "Title: x", "**Title:** x",
// "# x" or just a first line all name a title.
namespace ReplyText {
// The title and the index (in prose lines) of the line it came from, or -1 when none was found.
QString title(const QStringList &proseLines, int *lineIndex = nullptr);
// Strips list markers, bold markers and a "Label:" prefix.
QString stripLabel(QString line, const QString &label);
QString clip(const QString &text, int maxChars);
} // namespace ReplyText
