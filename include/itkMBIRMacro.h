/*=========================================================================
 *
 *  Copyright ITKMBIR contributors
 *
 *  Licensed under the Apache License, Version 2.0 (the "License");
 *  you may not use this file except in compliance with the License.
 *  You may obtain a copy of the License at
 *
 *         https://www.apache.org/licenses/LICENSE-2.0.txt
 *
 *  Unless required by applicable law or agreed to in writing, software
 *  distributed under the License is distributed on an "AS IS" BASIS,
 *  WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 *  See the License for the specific language governing permissions and
 *  limitations under the License.
 *
 *=========================================================================*/
#ifndef itkMBIRMacro_h
#define itkMBIRMacro_h

#include "itkMacro.h"

/** itkOverrideGetNameOfClassMacro(thisClass) replaces itkTypeMacro(thisClass, superclass) from ITK 5.4 on, where
 * itkTypeMacro is deprecated (and refused when ITK_FUTURE_LEGACY_REMOVE is on). ITK 5.2 has only itkTypeMacro, whose
 * superclass argument it never used; there the new name stands for it.
 *
 * \ingroup MBIR
 */
#ifndef itkOverrideGetNameOfClassMacro
#  define itkOverrideGetNameOfClassMacro(thisClass) itkTypeMacro(thisClass, Superclass)
#endif

#endif
