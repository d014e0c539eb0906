#pragma once

#include <QString>

#include <utility>
#include <variant>

// Why an agent's reply could not be used. The kind lets the search decide (a truncated reply may deserve a
// retry with more tokens; a reply without code is just a lost sample); the message is for people.
struct AgentParseError
{
    enum class Kind
    {
        Empty,     // nothing but whitespace
        NoCode,    // no fenced code block where one was required
        NoKernel,  // code blocks, but none defines `kernel`
        Truncated, // ends inside an open code fence
        NoChange,  // the summarizer found the two kernels equivalent
        Malformed, // some other part of the expected layout is missing
    };
    Kind kind = Kind::Malformed;
    QString message;
};

// The typed outcome of parsing one reply: a value or an AgentParseError.
template<typename T> class ParseResult
{
public:
    ParseResult(T value) : m_state(std::move(value)) {}
    ParseResult(AgentParseError error) : m_state(std::move(error)) {}

    bool ok() const { return std::holds_alternative<T>(m_state); }
    const T &value() const { return std::get<T>(m_state); }
    const AgentParseError &error() const { return std::get<AgentParseError>(m_state); }

private:
    std::variant<T, AgentParseError> m_state;
};
