"""Form fields that choose model objects by id, reading the posted ids as the outside numbers they are.

Django's model choice fields hand a posted id to ``int()``, which reads "١" (Arabic-Indic one) as 1, and send
an id of any length to the database, where a list of them overflows the column: a stack trace instead of a
message on the form. Here an id is 1 to 18 ASCII digits (``core.numbers.ascii_int``) or the choice is invalid.
"""

from django import forms
from django.core.exceptions import ValidationError

from core.numbers import ascii_int


def _is_id(field, value) -> bool:
    return (
        field.to_field_name is not None or isinstance(value, field.queryset.model) or ascii_int(str(value)) is not None
    )


class IdChoiceField(forms.ModelChoiceField):
    def to_python(self, value):
        if value not in self.empty_values and not _is_id(self, value):
            raise ValidationError(self.error_messages["invalid_choice"], code="invalid_choice")
        return super().to_python(value)


class IdMultipleChoiceField(forms.ModelMultipleChoiceField):
    def _check_values(self, value):
        for pk in value:
            if not _is_id(self, pk):
                raise ValidationError(
                    self.error_messages["invalid_pk_value"], code="invalid_pk_value", params={"pk": pk}
                )
        return super()._check_values(value)
