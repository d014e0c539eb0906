#pragma once

#include "advice/valueunit.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

class ProfileValues;

// A rule's advice text with the kernel's numbers put in: "{name}" inserts a value in the unit its name
// implies,
// "{name|unit}" in the named one (ValueUnit::names()), "{bound}" the roofline's limit, "{{" a literal brace.
// A value the profile lacks reads "(not reported)".
class AdviceTemplate
{
public:
    static std::optional<AdviceTemplate> parse(const QString &text, QString *error);

    QString render(const ProfileValues &values) const;
    // The value names the text inserts ("bound" excluded: it is not a number).
    QStringList valueNames() const;
    QString text() const { return m_text; }

private:
    struct Piece
    {
        QString literal; // when name is empty
        QString name;
        std::optional<ValueUnit::Kind> unit;
    };

    QString m_text;
    QList<Piece> m_pieces;
};
